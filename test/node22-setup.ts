/** Global setup of vitest.node22.config.ts: the Node 22 files run under Node 22 or not at all. */
export default function setup(): void {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) {
    throw new Error(
      `the *.node22.test.ts files need Node >= 22 (this is ${process.version}): run them with npm run test:node22`,
    );
  }
}
