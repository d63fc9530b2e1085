#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The Debian package: scripts/deb builds brock_VERSION_ARCH.deb from a copy of the tree with
// dpkg-buildpackage, lintian finds no error in it, and it holds the program, its manual, the
// unit and the configuration file (a conffile), depends on Privacy Badger's data and the
// Public Suffix List, enables and starts nothing, and carries no path of the build. Skipped
// where dpkg-buildpackage is missing (scripts/deps test installs it). About a minute.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./harness.js');
const { check, run, tmpdir } = h;

const TOP = path.resolve(__dirname, '..', '..');

check('make deb builds a lintian-clean package with the program, manual, unit and conffile',
      async (t) => {
  if ((await run('sh', ['-c', 'command -v dpkg-buildpackage && command -v dh && ' +
                              'command -v lintian'])).code !== 0) {
    t.skip('dpkg-buildpackage, debhelper or lintian is missing (scripts/deps test installs ' +
           'them)');
    return;
  }
  // The package is built from the tree as Debian builds it, never with the sanitizers: the
  // suite's sanitizer run would build and check the very same package again.
  if (/\bSANITIZE=1\b/.test(process.env.BROCK_MAKE || '')) {
    t.skip('the package does not depend on the sanitizer build; the plain run checks it');
    return;
  }
  const out = tmpdir('deb');
  const parent = fs.readdirSync(path.dirname(TOP)).sort();
  const built = await run(path.join(TOP, 'scripts', 'deb'), ['--lintian', out],
                          { timeout: 240000 });
  assert.equal(built.code, 0, built.stderr);
  assert.deepEqual(fs.readdirSync(path.dirname(TOP)).sort(), parent,
                   'the checkout\'s parent folder changed');
  const version = /#define BROCK_VERSION "([^"]+)"/.exec(
    fs.readFileSync(path.join(TOP, 'include', 'brock.h'), 'utf8'))[1];
  const arch = (await run('dpkg', ['--print-architecture'])).stdout.trim();
  const deb = path.join(out, `brock_${version}_${arch}.deb`);
  assert.equal(built.stdout.trim(), deb);

  const files = (await run('dpkg-deb', ['-c', deb])).stdout;
  for (const [mode, file] of [['-rwxr-xr-x', './usr/bin/brock'],
                              ['-rw-r--r--', './usr/share/man/man1/brock.1.gz'],
                              ['-rw-r--r--', './lib/systemd/system/brock.service'],
                              ['-rw-r--r--', './etc/brock/brock.conf']]) {
    assert.ok(files.split('\n').some((l) => l.startsWith(mode) && l.endsWith(' ' + file)),
              `${file} (${mode}) is not in the package:\n${files}`);
  }
  assert.ok(!/\.\/usr\/(include|lib\/[^/]*\.a)/.test(files), 'the static library is shipped');

  const conffiles = await run('dpkg-deb', ['-I', deb, 'conffiles']);
  assert.equal(conffiles.stdout.trim(), '/etc/brock/brock.conf');
  const depends = (await run('dpkg-deb', ['-f', deb, 'Depends'])).stdout.trim();
  for (const dep of ['webext-privacy-badger', 'publicsuffix', 'adduser', 'libevent-2.1-7',
                     'libsystemd0']) {
    assert.match(depends, new RegExp(`(^|, )${dep}( |,|$)`), `Depends lacks ${dep}`);
  }
  const postinst = (await run('dpkg-deb', ['-I', deb, 'postinst'])).stdout;
  assert.match(postinst, /adduser --system --group/);
  assert.match(postinst, /chmod 0700 \/var\/lib\/brock/);
  assert.doesNotMatch(postinst, /deb-systemd-invoke .*start|systemctl .*(enable|start)/,
                      'the package starts or enables brock');

  // No path of the build (the temporary copy, the checkout) in any file of the package.
  const root = tmpdir('deb-x');
  assert.equal((await run('dpkg-deb', ['-x', deb, root])).code, 0);
  const grep = await run('grep', ['-rlaE', `brock-deb\\.|${TOP.replace(/[.]/g, '\\.')}`, root]);
  assert.equal(grep.stdout, '', 'build paths in the package');
  const v = await run(path.join(root, 'usr', 'bin', 'brock'), ['--version']);
  assert.equal(v.stdout.trim(), `brock ${version}`);
}, 300000);
