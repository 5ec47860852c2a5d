/** @type {import('jest').Config} */
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  testTimeout: 60000,
  // The default summary, then how many tests were skipped and why (CI=true: a skip fails the run).
  reporters: ["default", "<rootDir>/tests/helpers/skip-reporter.js"],
};
