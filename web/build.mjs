// Bundles src/main.ts (with the generated stubs of clients/typescript and
// the Connect runtime) into dist/app.js, and copies static/ into dist/.
// `node build.mjs --check` builds in memory and fails if dist/ differs: the
// committed bundle must be what the sources build to.
import { build } from "esbuild";
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes("--check");

// The stubs live in clients/typescript, whose own node_modules (if any)
// must not decide which runtime is bundled: every package resolves here.
const packagesFromHere = {
  name: "packages-from-web",
  setup(b) {
    b.onResolve({ filter: /^@(bufbuild|connectrpc)\// }, (args) => {
      if (args.pluginData === "here") return undefined;
      return b.resolve(args.path, { kind: args.kind, resolveDir: here, pluginData: "here" });
    });
  },
};

const result = await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  charset: "utf8",
  write: false,
  outfile: join(here, "dist", "app.js"),
  plugins: [packagesFromHere],
  logLevel: "warning",
  metafile: process.argv.includes("--sizes"),
});

const files = new Map([
  ["app.js", result.outputFiles[0].contents],
  ["index.html", readFileSync(join(here, "static", "index.html"))],
  ["app.css", readFileSync(join(here, "static", "app.css"))],
]);

if (process.argv.includes("--sizes")) {
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  for (const [name, { bytesInOutput }] of Object.entries(inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 20)) {
    console.log(`${bytesInOutput}\t${name}`);
  }
}

if (check) {
  const stale = [...files].filter(([name, bytes]) => {
    const path = join(here, "dist", name);
    return !existsSync(path) || !Buffer.from(bytes).equals(readFileSync(path));
  });
  if (stale.length > 0) {
    console.error(`web/dist is not what web/ builds to (${stale.map(([n]) => n).join(", ")}): run scripts/build-web and commit web/dist`);
    process.exit(1);
  }
  console.log("web/dist matches its sources");
} else {
  mkdirSync(join(here, "dist"), { recursive: true });
  for (const [name, bytes] of files) writeFileSync(join(here, "dist", name), bytes);
  for (const [name, bytes] of files) console.log(`web/dist/${name} ${bytes.length} bytes`);
}

