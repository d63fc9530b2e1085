#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock clean`: URLs through the ClearURLs rules brock ships, built into the binary: tracking
// parameters out, the rest as written, wrappers unwrapped, with --json what was done; a URL
// that is not http(s) is refused, naming it, and the others are cleaned all the same.
'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const h = require('./harness.js');
const { check } = h;

const tmp = h.tmpdir('clean-t');
const S = path.join(tmp, 'state');

check('brock clean takes the tracking parameters out and unwraps wrappers', async () => {
  const urls = [
    'https://shop.example/item?utm_source=news&utm_medium=mail&id=42#utm_campaign=x&tab=2',
    'https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&h=AT0',
    'https://www.amazon.com/dp/B08N5WRWNW/ref=sr_1_1?keywords=lamp&qid=1611234567&sr=8-1',
    'https://example.org/?q=a%20b+c',
  ];
  let r = await h.brock(S, ['clean', ...urls]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    'https://shop.example/item?id=42#tab=2',
    'https://example.com/a?b=1',
    'https://www.amazon.com/dp/B08N5WRWNW',
    'https://example.org/?q=a%20b+c',
  ]);
  r = await h.brock(S, ['clean', '--json', urls[0], urls[1], urls[3]]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines[0], { url: urls[0], clean: 'https://shop.example/item?id=42#tab=2',
                               result: 'stripped', provider: 'globalRules',
                               removed: ['utm_campaign', 'utm_source', 'utm_medium'] });
  assert.equal(lines[1].result, 'redirect');
  assert.equal(lines[1].provider, 'facebook');
  assert.deepEqual([lines[2].result, lines[2].removed], ['none', []]);
});

check('a URL that is not one is refused, by name; the others are cleaned', async () => {
  let r = await h.brock(S, ['clean', 'ftp://example.com/', 'https://a.example/?fbclid=1']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /'ftp:\/\/example\.com\/' is not an http\(s\) URL/);
  assert.equal(r.stdout, 'https://a.example/\n');
  r = await h.brock(S, ['clean']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /give at least one URL/);
});
