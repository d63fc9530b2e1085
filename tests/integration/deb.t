#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The Debian package: scripts/deb builds brock_VERSION_ARCH.deb from a copy of the tree with
// dpkg-buildpackage, lintian finds no error in it, and it holds the program, its manual, the
// units (service and socket) and the configuration file (a conffile), depends on Privacy
// Badger's data and the Public Suffix List, enables and starts nothing, and carries no path of
// the build. dpkg itself then installs it into a throw-away root (an empty database of its
// own): unpacked there, with each file and mode in place, the conffile registered, the units
// valid for systemd-analyze and the program running. The postinst and postrm are checked for
// what they do and their syntax, never run: they create the system user and remove the state
// on the machine's own root, which a throw-away one cannot stand in for. Skipped where
// dpkg-buildpackage is missing (scripts/deps test installs it). The compile takes most of
// its time; lintian runs while the other checks do.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./harness.js');
const { check, run, tmpdir } = h;

const TOP = path.resolve(__dirname, '..', '..');

check('make deb builds a lintian-clean package with the program, manual, units and conffile, ' +
      'which dpkg installs into a throw-away root',
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
  const built = await run(path.join(TOP, 'scripts', 'deb'), [out], { timeout: 240000 });
  assert.equal(built.code, 0, built.stderr);
  // lintian (as `make deb` runs it) checks the package while the rest of the test does.
  const changes = fs.readdirSync(out).filter((f) => /^brock_.*\.changes$/.test(f));
  assert.equal(changes.length, 1, `no .changes in ${fs.readdirSync(out)}`);
  const linted = run('lintian', ['--fail-on', 'error', path.join(out, changes[0])],
                     { timeout: 240000 });
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
                              ['-rw-r--r--', './lib/systemd/system/brock.socket'],
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
  // libpq is loaded at run time (dlopen), which shlibs:Depends cannot see: named by hand.
  assert.doesNotMatch(depends, /(^|, )libpq5( |,|$)/, 'Depends names libpq5');
  const recommends = (await run('dpkg-deb', ['-f', deb, 'Recommends'])).stdout.trim();
  assert.match(recommends, /(^|, )libpq5( |,|$)/, `Recommends lacks libpq5: ${recommends}`);
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
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const body = (await run('dpkg-deb', ['-I', deb, script])).stdout;
    if (!body) continue;
    const f = path.join(tmpdir('deb-script'), script);
    fs.writeFileSync(f, body);
    const syntax = await run('sh', ['-n', f]);
    assert.equal(syntax.code, 0, `${script}: ${syntax.stderr}`);
  }

  // Installed by dpkg into a root of its own. Unpacking runs one maintainer script, the
  // preinst (debhelper's: stop the units on an upgrade), here outside the root
  // (--force-script-chrootless, as the root has no shell) with DPKG_ROOT set, which makes it
  // do nothing: it is run only while all it does stays inside that guard.
  const preinst = (await run('dpkg-deb', ['-I', deb, 'preinst'])).stdout.split('\n')
    .map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && l !== 'set -e');
  assert.match(preinst[0] || '', /^if \[ -z "\$\{DPKG_ROOT:-\}" \] &&/,
               `the preinst does more than it did:\n${preinst.join('\n')}`);
  assert.equal(preinst.at(-1), 'fi');
  assert.equal(preinst.filter((l) => /^(if|fi)\b/.test(l)).length, 2, preinst.join('\n'));
  const inst = tmpdir('deb-root');
  fs.mkdirSync(path.join(inst, 'var', 'lib', 'dpkg', 'updates'), { recursive: true });
  fs.mkdirSync(path.join(inst, 'var', 'lib', 'dpkg', 'info'));
  fs.writeFileSync(path.join(inst, 'var', 'lib', 'dpkg', 'status'), '');
  const dpkg = (args) => run('dpkg', [`--root=${inst}`, '--force-not-root',
                                      '--force-script-chrootless', ...args], { timeout: 60000 });
  const unpacked = await dpkg(['--unpack', deb]);
  assert.equal(unpacked.code, 0, unpacked.stderr);
  const status = (await dpkg(['--status', 'brock'])).stdout;
  assert.match(status, /^Status: install ok unpacked$/m);
  assert.match(status, new RegExp(`^Version: ${version.replace(/\./g, '\\.')}$`, 'm'));
  // Registered as a conffile, not yet configured (its hash is recorded at configure).
  assert.match(status, /^Conffiles:\n \/etc\/brock\/brock\.conf newconffile$/m);
  const listed = (await dpkg(['--listfiles', 'brock'])).stdout.split('\n');
  for (const [mode, file] of [[0o755, '/usr/bin/brock'], [0o644, '/etc/brock/brock.conf'],
                              [0o644, '/lib/systemd/system/brock.service'],
                              [0o644, '/lib/systemd/system/brock.socket'],
                              [0o644, '/usr/share/man/man1/brock.1.gz']]) {
    assert.ok(listed.includes(file), `dpkg does not list ${file}`);
    // A conffile waits as .dpkg-new until the package is configured.
    const st = fs.statSync(path.join(inst, file + (file.startsWith('/etc/') ? '.dpkg-new' : '')));
    assert.ok(st.isFile(), `${file} was not installed`);
    assert.equal(st.mode & 0o7777, mode, `${file}: mode ${(st.mode & 0o7777).toString(8)}`);
  }
  // Only the postinst makes the state folder and the user; nothing ran it.
  assert.ok(!fs.existsSync(path.join(inst, 'var', 'lib', 'brock')));
  const installed = path.join(inst, 'usr', 'bin', 'brock');
  const v = await run(installed, ['--version']);
  assert.equal(v.stdout.trim(), `brock ${version}`);
  // The installed units, as systemd would read them, pointed at the installed program.
  if ((await run('systemd-analyze', ['--version'])).code === 0) {
    const units = tmpdir('deb-units');
    for (const u of ['brock.service', 'brock.socket']) {
      fs.writeFileSync(path.join(units, u),
                       fs.readFileSync(path.join(inst, 'lib', 'systemd', 'system', u), 'utf8')
                         .replace(/\/usr\/bin\/brock/g, installed));
    }
    for (const u of ['brock.service', 'brock.socket']) {
      const r = await run('systemd-analyze', ['verify', '--man=no', path.join(units, u)],
                          { timeout: 30000 });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.trim(), '', `systemd-analyze found something to say of ${u}`);
    }
  }
  const lint = await linted;
  assert.equal(lint.code, 0, `lintian: ${lint.stdout}${lint.stderr}`);
}, 300000);
