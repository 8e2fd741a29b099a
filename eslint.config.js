import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".cache/**", "coverage/**", ".prelim-*"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  // Imports point down: the pure library (src/) never imports the I/O layer (adapters/); the package root
  // (index.ts) composes them.
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)adapters(/|$)",
              message: "src/ is pure: it must not import adapters/ (compose in index.ts or inject).",
            },
          ],
        },
      ],
    },
  },
  // The framework-neutral core (and the root entry's sources, and the AI SDK face) load no LangChain package: an app
  // without LangChain imports them (test/core/no-langchain.test.ts checks the built root entry).
  {
    files: ["src/core/**/*.ts", "src/index.ts", "src/ai-sdk/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)adapters(/|$)",
              message: "src/ is pure: it must not import adapters/ (compose in index.ts or inject).",
            },
            {
              regex: "^(langchain|@langchain/.*)$",
              message: "the core is framework-neutral: LangChain code lives in src/langchain/ (irt-router/langchain).",
            },
          ],
        },
      ],
    },
  },
  // Every import visible to tools and the type checker: no module path held in a variable.
  {
    files: ["src/**/*.ts", "adapters/**/*.ts", "bin/**/*.ts", "index.ts", "langchain.ts", "ai-sdk.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportExpression[source.type!='Literal']",
          message:
            "Use a literal module path in import(): a path held in a variable is invisible to tools and the type checker.",
        },
      ],
    },
  },
  // Small modules and functions (the structure rules of the code base): a source file of the library or its
  // adapters holds at most 450 lines, a function at most 80 lines of code (blank lines and comments not counted).
  {
    files: ["src/**/*.ts", "adapters/**/*.ts", "index.ts", "langchain.ts", "ai-sdk.ts"],
    rules: {
      "max-lines": ["error", { max: 450, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
);
