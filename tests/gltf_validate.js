// tests/gltf_validate.js - runs the Khronos glTF validator (npm gltf-validator) on one file.
// Usage: node tests/gltf_validate.js NPM_PREFIX FILE.glb
// Prints one line "errors=N warnings=N infos=N" plus each error, exits 0 when there are no errors.
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require(path.join(path.resolve(process.argv[2]), 'node_modules', 'gltf-validator'));
const file = process.argv[3];
const data = new Uint8Array(fs.readFileSync(file));
validator.validateBytes(data, {
  uri: path.basename(file),
  maxIssues: 100,
  externalResourceFunction: (uri) => Promise.reject(new Error('external resources not expected: ' + uri)),
}).then((report) => {
  const i = report.issues;
  console.log(`errors=${i.numErrors} warnings=${i.numWarnings} infos=${i.numInfos}`);
  for (const m of i.messages) {
    if (m.severity <= 1) console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
  }
  process.exit(i.numErrors === 0 ? 0 : 1);
}, (err) => {
  console.log('validator failed: ' + err);
  process.exit(2);
});
