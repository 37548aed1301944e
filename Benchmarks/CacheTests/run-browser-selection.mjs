// Runs the cache-tests.fyi suite's browser selection against a cache at BASE_URL and prints
// the results as JSON: `node run-browser-selection.mjs HARNESS_DIR BASE_URL`.
// The suite's own command-line runner runs the proxy selection; this runs the tests as its
// browser page does (the browser-only ones included, the ones it skips for browsers left out),
// with Node's fetch, which keeps no cache of its own, in place of the browser's.
import { pathToFileURL } from 'node:url'
import path from 'node:path'

const [harness, baseUrl] = process.argv.slice(2)
const load = (file) => import(pathToFileURL(path.join(harness, file)))
const { runTests, getResults } = await load('test-engine/client/runner.mjs')
const { default: suites } = await load('tests/index.mjs')

await runTests(suites, true, baseUrl)
console.log(JSON.stringify(getResults(), null, 2))
