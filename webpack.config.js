/**
 * Builds the add-in into dist/ (`npm run build`; `npm run dev-server` serves it on https://localhost:3000).
 *
 * dist/ gets: taskpane.html (the shared runtime's page: it loads taskpane.js, functions.js and
 * commands.js), functions.js + functions.json (metadata generated from the JSDoc of
 * src/functions/functions.ts), commands.html, help.html (from docs/functions/*.md),
 * taskpane.css, assets/ and manifest.xml.
 *
 * URLs: the manifest and the functions' help URLs point at https://localhost:3000/. Set
 * ADDIN_URL=https://host/path/ for a production build served elsewhere: every
 * https://localhost:3000/ in manifest.xml and functions.json is rewritten to it.
 */
const path = require("path");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const webpack = require("webpack");
const { HelpPagePlugin } = require("./scripts/help-page");
const { functionSummaries } = require("./scripts/function-summaries");

const DEV_URL = "https://localhost:3000/";
const FUNCTIONS_INPUT = "./src/functions/functions.ts";

/** ADDIN_URL normalised to end in "/", or the dev URL. */
function addinUrl(dev) {
  const url = process.env.ADDIN_URL;
  if (dev || !url) return DEV_URL;
  if (!/^https:\/\//.test(url)) throw new Error(`ADDIN_URL must be an https URL, got "${url}"`);
  return url.endsWith("/") ? url : `${url}/`;
}

/** Rewrites the dev URL (and the bare dev origin, as in <AppDomain>) to the production one. */
function rewriteUrls(text, url) {
  if (url === DEV_URL) return text;
  const origin = new URL(url).origin;
  return text.split(DEV_URL).join(url).split(DEV_URL.slice(0, -1)).join(origin);
}

/** The functions' metadata, once custom-functions-metadata-plugin has generated it for this compilation. */
function functionsMetadata() {
  const result = CustomFunctionsMetadataPlugin.generateResults[FUNCTIONS_INPUT];
  return result ? JSON.parse(result.metadataJson).functions : [];
}

module.exports = async (env, options) => {
  const dev = options.mode === "development";
  const serve = Boolean(env && env.WEBPACK_SERVE);
  const url = addinUrl(dev);
  const config = {
    devtool: "source-map",
    entry: {
      taskpane: "./src/taskpane/taskpane.ts",
      // The second module publishes the wrappers for the task pane (src/sharing/functions.ts).
      functions: [FUNCTIONS_INPUT, "./src/sharing/publish.ts"],
      commands: "./src/commands/commands.ts",
      // The pane's reading worker (new Worker("read-worker.js")): readers and analysis off the UI thread.
      "read-worker": "./src/taskpane/read-worker.ts",
    },
    output: {
      path: path.resolve(__dirname, "dist"),
      filename: "[name].js",
      clean: true,
    },
    resolve: {
      extensions: [".ts", ".js"],
    },
    module: {
      rules: [
        // The pane's icons (src/taskpane/icons.ts): bundled SVG text from @fluentui/svg-icons.
        { test: /\.svg$/, type: "asset/source" },
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: {
            loader: "ts-loader",
            options: {
              // Type-check what is bundled, not every test and bench file of the project.
              onlyCompileBundledFiles: true,
              // `webpack serve` only transpiles: 2.5× faster to the first page (25 s instead of 64 s
              // on a loaded 2-core machine). Types are checked by `npm run build`, `npx tsc --noEmit`
              // and `npm test`.
              transpileOnly: serve,
              // ES modules let webpack tree-shake the libraries the core uses.
              compilerOptions: { module: "es2020", moduleResolution: "node" },
            },
          },
        },
      ],
    },
    // The functions bundle carries statistics libraries; size hints would only be noise.
    performance: { hints: false },
    plugins: [
      new CustomFunctionsMetadataPlugin({ input: FUNCTIONS_INPUT, output: "functions.json" }),
      new webpack.DefinePlugin({
        // Read when taskpane.ts is compiled, i.e. after the metadata plugin has parsed functions.ts;
        // recomputed in watch mode when functions.ts changes.
        __CAPLAB_FUNCTIONS__: webpack.DefinePlugin.runtimeValue(
          () => JSON.stringify(functionSummaries(functionsMetadata())),
          {
            fileDependencies: [path.resolve(__dirname, FUNCTIONS_INPUT)],
          },
        ),
      }),
      new HtmlWebpackPlugin({
        filename: "taskpane.html",
        template: "./src/taskpane/taskpane.html",
        // Shared runtime: the one page holds the task pane, the custom functions and the ribbon commands.
        chunks: ["functions", "commands", "taskpane"],
        scriptLoading: "defer",
      }),
      new HtmlWebpackPlugin({
        filename: "commands.html",
        template: "./src/commands/commands.html",
        chunks: ["commands"],
        scriptLoading: "defer",
      }),
      new HelpPagePlugin({
        docsDir: path.resolve(__dirname, "docs", "functions"),
        summaries: () => Object.fromEntries(functionsMetadata().map((f) => [f.id, f.description || ""])),
      }),
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets/*.png", to: "assets/[name][ext]" },
          { from: "src/taskpane/taskpane.css", to: "taskpane.css" },
          // The first-run sample: two protocols drawn from a documented model (its README, generator beside it).
          { from: "tests/lab/fixtures/lab-sample/subintervals.csv", to: "samples/lab-sample-subintervals.csv" },
          { from: "tests/lab/fixtures/lab-sample/summary.csv", to: "samples/lab-sample-summary.csv" },
          { from: "tests/lab/fixtures/lab-sample/README.md", to: "samples/README.md" },
          {
            from: "manifest.xml",
            to: "manifest.xml",
            transform: (content) => rewriteUrls(content.toString(), url),
          },
        ],
      }),
      {
        // functions.json's helpUrls follow ADDIN_URL too (the metadata plugin writes them verbatim).
        apply(compiler) {
          compiler.hooks.thisCompilation.tap("RewriteHelpUrls", (compilation) => {
            compilation.hooks.processAssets.tap(
              { name: "RewriteHelpUrls", stage: webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE },
              () => {
                const asset = compilation.getAsset("functions.json");
                if (asset && url !== DEV_URL) {
                  const text = rewriteUrls(asset.source.source().toString(), url);
                  compilation.updateAsset("functions.json", new webpack.sources.RawSource(text));
                }
              },
            );
          });
        },
      },
    ],
  };

  if (serve) {
    // Only `webpack serve` needs the localhost certificate; build and test never do.
    const { devServerHttpsOptions } = require("./scripts/dev-certs");
    config.devServer = {
      // Everything is served from the in-memory build; no stale files from an earlier `npm run build`.
      static: false,
      headers: { "Access-Control-Allow-Origin": "*" },
      server: { type: "https", options: await devServerHttpsOptions() },
      port: Number(process.env.npm_package_config_dev_server_port) || 3000,
    };
  }
  return config;
};

// For tests: the URL rewriting applied to manifest.xml and functions.json when ADDIN_URL is set.
module.exports.rewriteUrls = rewriteUrls;
