// `npm run perf`: serves the built UI and runs the perf harness (e2e/perf-run.mjs) against it.
process.argv[2] = "perf";
await import("./run.mjs");
