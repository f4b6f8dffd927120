// ort_run.js — runs an ONNX model with ONNX Runtime (npm onnxruntime-node, installed into .ort/
// by scripts/install-ort.sh): the model tests' oracle and the model bench's baseline.
//
//   node bench/models/ort_run.js MODEL.onnx --input NAME=FILE.npy ... [--output DIR]
//        [--threads N] [--rounds R] [--profile PREFIX]
//
// Writes each output as DIR/NAME.npy (NAME with anything but [A-Za-z0-9_-] replaced by '_', as
// `attune run-model` names them) and prints one JSON line: {"median_s": ..., "times_s": [...]}
// over R timed runs after one warm-up (R = 0: no timing). Float32 inputs only. --profile writes
// ONNX Runtime's own per-node trace (PREFIX_<date>.json, Chrome trace format) to compare its
// operators with `attune run-model --profile`.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', '..', '.ort', 'node_modules', 'onnxruntime-node'));

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  if (!header.includes("'<f4'")) throw new Error(file + ': only float32 .npy inputs are supported');
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + start + hlen, buf.byteOffset + buf.length));
  return { shape, data };
}

function writeNpy(file, shape, data) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${dims}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const body = Buffer.from(new Float32Array(data).buffer);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}

function fileName(name, k) {
  const s = name.slice(0, 100).replace(/[^A-Za-z0-9_-]/g, '_');
  return (s || 'output' + k) + '.npy';
}

async function main() {
  const args = process.argv.slice(2);
  const model = args[0];
  const inputs = {};
  let outDir = null, threads = 1, rounds = 0, profile = null;
  for (let i = 1; i < args.length; i += 2) {
    if (args[i] === '--input') {
      const eq = args[i + 1].indexOf('=');
      const t = readNpy(args[i + 1].slice(eq + 1));
      inputs[args[i + 1].slice(0, eq)] = new ort.Tensor('float32', t.data, t.shape);
    } else if (args[i] === '--output') outDir = args[i + 1];
    else if (args[i] === '--threads') threads = Number(args[i + 1]);
    else if (args[i] === '--rounds') rounds = Number(args[i + 1]);
    else if (args[i] === '--profile') profile = args[i + 1];
    else throw new Error('unknown argument ' + args[i]);
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', executionProviders: ['cpu'],
    ...(profile ? { enableProfiling: true, profileFilePrefix: profile } : {}),
  });
  let results = await session.run(inputs);
  const times = [];
  for (let r = 0; r < rounds; ++r) {
    const t0 = process.hrtime.bigint();
    results = await session.run(inputs);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  if (outDir) {
    fs.mkdirSync(outDir, { recursive: true });
    session.outputNames.forEach((name, k) => writeNpy(path.join(outDir, fileName(name, k)), results[name].dims, results[name].data));
  }
  if (profile) session.endProfiling();
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ median_s: times.length ? times[Math.floor(times.length / 2)] : 0, times_s: times }));
}

// ONNX Runtime's telemetry layer creates an empty /tmp/mat-debug-<pid>.log in every process that
// loads it (hard-coded /tmp, TMPDIR ignored): the tests run this script hundreds of times.
process.on('exit', () => {
  const log = `/tmp/mat-debug-${process.pid}.log`;
  try {
    if (fs.statSync(log).size === 0) fs.unlinkSync(log);
  } catch (e) { /* not there */ }
});

main().catch(e => { console.error('ort_run: ' + e.message); process.exit(1); });
