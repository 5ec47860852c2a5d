// ESLint 9 flat config. Formatting is prettier's job (`prettier --check` in `npm run lint`),
// so no stylistic rules here: eslint-config-prettier switches off any that would conflict.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettierConfig from "eslint-config-prettier";
import officeAddins from "eslint-plugin-office-addins";
import globals from "globals";

export default tseslint.config(
  {
    ignores: ["dist/**", "lib/**", "node_modules/**", "iogen/target/**", "coverage/**", ".tmp/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettierConfig,
  {
    // Defaults for everything: TypeScript sources run in Node (core, CLI, tests) or the browser
    // (task pane, functions), so both sets of globals are known.
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Office.js code: the rules that catch the classic Excel.run mistakes (reading before sync,
    // syncing in loops, Office.initialize instead of Office.onReady).
    files: ["src/**/*.ts", "src/**/*.tsx"],
    plugins: { "office-addins": officeAddins },
    rules: {
      "office-addins/call-sync-after-load": "error",
      "office-addins/call-sync-before-read": "error",
      "office-addins/load-object-before-read": "error",
      "office-addins/no-context-sync-in-loop": "warn",
      "office-addins/no-empty-load": "warn",
      "office-addins/no-navigational-load": "warn",
      "office-addins/no-office-initialize": "warn",
      "office-addins/test-for-null-using-isNullObject": "error",
    },
  },
  {
    // Every function in src/ stays readable: no more than 20 independent paths through it and no
    // more than 100 lines (blanks and comments aside). No src file over 700 lines (as `wc -l`
    // counts): one that grows past it holds more than one idea and is split into rooms, as
    // src/case and src/lab are.
    files: ["src/**/*.ts"],
    rules: {
      complexity: ["error", 20],
      "max-lines": ["error", { max: 700, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": ["error", { max: 100, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The CLI loads its command modules lazily with require() so `caplab calc` does not pay for ExcelJS.
    files: ["src/cli/**/*.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Plain CommonJS files: bin/, configs, scripts.
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
