// Scores a cache-tests.fyi run: `node score.mjs HARNESS_DIR RESULTS.json`.
// Counts the tests of the browser selection, the one cache-tests.fyi shows browsers (and so
// private caches) against: every test but the CDN-only ones and those it skips for browsers.
// Each is judged by the harness's own result types (a test whose dependency failed fails), and
// the required and optimal ones that did not pass are listed.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import path from 'node:path'

const [harness, resultsFile] = process.argv.slice(2)
const { default: suites } = await import(pathToFileURL(path.join(harness, 'tests/index.mjs')))
const { determineTestResult, resultTypes } = await import(pathToFileURL(path.join(harness, 'test-engine/lib/results.mjs')))
const results = JSON.parse(readFileSync(resultsFile, 'utf8'))

const counts = { required: [0, 0], optimal: [0, 0], check: [0, 0] }
// Passes when a test whose dependency failed is judged on its own result, as the suite's
// command-line runner judges one test.
const alone = { required: 0, optimal: 0, check: 0 }
const failing = { required: [], optimal: [] }
for (const suite of suites) {
  for (const test of suite.tests) {
    if (test.cdn_only || test.browser_skip) continue
    const kind = test.kind ?? 'required'
    const result = determineTestResult(suites, test.id, results)
    const passed = result === resultTypes.pass || result === resultTypes.yes
    const own = determineTestResult(suites, test.id, results, false)
    if (own === resultTypes.pass || own === resultTypes.yes) alone[kind] += 1
    counts[kind][1] += 1
    if (passed) counts[kind][0] += 1
    else if (kind in failing) failing[kind].push(`${test.id} (${result[2]})`)
  }
}
const total = Object.values(counts).reduce((sum, [, n]) => sum + n, 0)
console.log(`tests: ${total}; required passed ${counts.required[0]} of ${counts.required[1]}; optimal passed ${counts.optimal[0]} of ${counts.optimal[1]}; checks yes ${counts.check[0]} of ${counts.check[1]}`)
console.log(`judged without dependencies: required passed ${alone.required}, optimal ${alone.optimal}, checks yes ${alone.check}`)
console.log(`required not passed: ${failing.required.join(', ')}`)
console.log(`optimal not passed: ${failing.optimal.join(', ')}`)
