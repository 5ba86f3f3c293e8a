import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { StartupError } from '../../core/errors.ts';
import { KEY_FILE, Keyring, SealBroken, SecretBox, keyFromText, readKeyFile, writeKeyFile } from '../../core/secret-box.ts';
import { captureLogs } from '../fixtures/log-capture.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

const OLD_KEY = 'old-instance-key-0123456789abcdefghij';
const NEW_KEY = 'new-instance-key-0123456789abcdefghij';
const OTHER_KEY = 'someone-elses-key-0123456789abcdefghij';
const CONTEXT = 'connection:4f1c:credentials';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const sealBroken = (pattern?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof SealBroken, `expected SealBroken, got ${String(err)}`);
  if (pattern) assert.match(err.message, pattern);
  return true;
};

/** `sealed` with the character at `i` replaced by another one (another base64url character where it was one). */
function altered(sealed: string, i: number): string {
  const c = sealed[i];
  const next = c === '.' ? 'A' : BASE64URL[(BASE64URL.indexOf(c) + 1) % BASE64URL.length];
  return sealed.slice(0, i) + next + sealed.slice(i + 1);
}

describe('secret box', () => {
  storageIndependent();

  const box = new SecretBox([keyFromText(NEW_KEY)]);

  it('opens what it sealed, unicode and empty values too', () => {
    for (const plaintext of ['sk_live_51HxYz', 'pässwörd ✓ 秘密 🔑', '', 'x'.repeat(10_000), 'line one\nline two\t"quoted"']) {
      assert.equal(box.open(box.seal(plaintext, CONTEXT), CONTEXT), plaintext);
    }
  });

  it('never shows the plaintext, and seals one value differently each time', () => {
    const plaintext = 'whsec_plain-signing-secret';
    const a = box.seal(plaintext, CONTEXT);
    const b = box.seal(plaintext, CONTEXT);
    for (const sealed of [a, b]) {
      assert.ok(!sealed.includes(plaintext), sealed);
      assert.ok(!sealed.includes('plain-signing'), sealed);
      assert.ok(!sealed.includes(Buffer.from(plaintext).toString('base64url').slice(0, 12)), sealed);
    }
    assert.notEqual(a, b);
    assert.equal(box.open(a, CONTEXT), plaintext);
    assert.equal(box.open(b, CONTEXT), plaintext);
    assert.equal(SecretBox.keyIdOf(a), box.currentKeyId);
  });

  it('refuses a value opened for another context: SealBroken', () => {
    const sealed = box.seal('token', CONTEXT);
    assert.throws(() => box.open(sealed, 'connection:9999:credentials'), sealBroken());
    assert.throws(() => box.open(sealed, ''), sealBroken());
  });

  it('refuses a value with any one character altered: SealBroken', () => {
    const sealed = box.seal('a credential worth stealing', CONTEXT);
    for (let i = 0; i < sealed.length; i++) {
      const changed = altered(sealed, i);
      assert.notEqual(changed, sealed);
      assert.throws(() => box.open(changed, CONTEXT), sealBroken(), `character ${i} altered: ${changed}`);
    }
  });

  it('refuses a truncated value, wherever it is cut: SealBroken', () => {
    const sealed = box.seal('a credential worth stealing', CONTEXT);
    for (let end = 0; end < sealed.length; end++) {
      assert.throws(() => box.open(sealed.slice(0, end), CONTEXT), sealBroken(), `cut at ${end}`);
    }
    // A shorter authentication tag, the rest whole: GCM would check fewer bits.
    const parts = sealed.split('.');
    for (const tagChars of [6, 11, 16, 21]) {
      const shortTag = [...parts.slice(0, 3), parts[3].slice(0, tagChars), parts[4]].join('.');
      assert.throws(() => box.open(shortTag, CONTEXT), sealBroken(), `tag cut to ${tagChars} characters`);
    }
    assert.throws(() => box.open('', CONTEXT), sealBroken(/not a sealed value/));
    assert.throws(() => box.open('plaintext-that-was-never-sealed', CONTEXT), sealBroken(/not a sealed value/));
  });

  it('opens what a previous key sealed once that key is listed as previous, and reseal moves it to the current key', () => {
    const before = new SecretBox([keyFromText(OLD_KEY)]);
    const sealedBefore = before.seal('rotate me', CONTEXT);
    // The new key alone does not know the old one.
    assert.throws(() => box.open(sealedBefore, CONTEXT), sealBroken());

    const rotating = new SecretBox([keyFromText(NEW_KEY), keyFromText(OLD_KEY)]);
    assert.equal(rotating.currentKeyId, box.currentKeyId);
    assert.equal(rotating.open(sealedBefore, CONTEXT), 'rotate me');

    const resealed = rotating.reseal(sealedBefore, CONTEXT);
    assert.equal(SecretBox.keyIdOf(sealedBefore), before.currentKeyId);
    assert.equal(SecretBox.keyIdOf(resealed), rotating.currentKeyId);
    assert.notEqual(SecretBox.keyIdOf(resealed), SecretBox.keyIdOf(sealedBefore));
    // The old key is no longer needed for it.
    assert.equal(box.open(resealed, CONTEXT), 'rotate me');
    // What already is under the current key stays as it is.
    assert.equal(rotating.reseal(resealed, CONTEXT), resealed);
    const current = rotating.seal('already current', CONTEXT);
    assert.equal(rotating.reseal(current, CONTEXT), current);
    // Resealing checks the context like opening does.
    assert.throws(() => rotating.reseal(sealedBefore, 'connection:other:credentials'), sealBroken());
  });

  it('names an unknown key by its id, never by any of its material', () => {
    const foreign = keyFromText(OTHER_KEY);
    const sealed = new SecretBox([foreign]).seal('not yours', CONTEXT);
    let message = '';
    assert.throws(() => box.open(sealed, CONTEXT), (err) => {
      assert.ok(err instanceof SealBroken);
      message = err.message;
      return true;
    });
    assert.ok(message.includes(foreign.id), message);
    assert.equal(SecretBox.keyIdOf(sealed), foreign.id);
    for (const material of [OTHER_KEY, NEW_KEY, ...[foreign.key, keyFromText(NEW_KEY).key].flatMap((k) => [k.toString('hex'), k.toString('base64'), k.toString('base64url')])]) {
      assert.ok(!message.includes(material), `the message shows key material: ${message}`);
    }
    // A key id tells nothing of the key, and two keys have two ids.
    assert.ok(!foreign.key.toString('hex').includes(foreign.id));
    assert.notEqual(foreign.id, keyFromText(NEW_KEY).id);
    assert.equal(keyFromText(OTHER_KEY).id, foreign.id);
  });
});

describe('keyring', () => {
  storageIndependent();

  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-keyring-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('without a configured key, makes the key file once (owner only), warns once, and a second keyring reads the same key', () => {
    const dataDir = path.join(dir, 'data');
    const logs = captureLogs();
    const first = new Keyring({ dataDir }, logs.logger);
    // Nothing happens before the box is first needed.
    assert.equal(fs.existsSync(path.join(dataDir, KEY_FILE)), false);
    const sealed = first.get().seal('made before the restart', CONTEXT);
    const file = path.join(dataDir, KEY_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.readFileSync(file, 'utf8');
    assert.equal(readKeyFile(dataDir).length, 1);
    first.get().seal('again', CONTEXT);
    first.reload();
    first.get();
    assert.equal(logs.lines.length, 1, JSON.stringify(logs.lines));
    assert.equal(logs.lines[0].level, 40);
    assert.equal(logs.lines[0].file, file);
    assert.match(logs.lines[0].msg, /TESSERA_SECRET_KEY/);
    assert.ok(!JSON.stringify(logs.lines).includes(readKeyFile(dataDir)[0]), 'the warning shows the key');

    const secondLogs = captureLogs();
    const second = new Keyring({ dataDir }, secondLogs.logger);
    assert.equal(second.get().open(sealed, CONTEXT), 'made before the restart');
    assert.equal(second.get().currentKeyId, first.get().currentKeyId);
    assert.equal(fs.readFileSync(file, 'utf8'), written, 'the key file was written again');
    assert.equal(secondLogs.lines.length, 0);
    assert.deepEqual(fs.readdirSync(dataDir), [KEY_FILE]);
  });

  it('keeps the key file another instance made meanwhile, instead of writing over it', () => {
    // Another process (a cluster worker) makes the file just after this one found none.
    const theirs = 'key-of-the-worker-that-came-first-0123456789';
    const existsSync = fs.existsSync;
    let raced = false;
    fs.existsSync = (p: fs.PathLike) => {
      const found = existsSync(p);
      if (!raced && String(p) === path.join(dir, KEY_FILE)) {
        raced = true;
        writeKeyFile(dir, [theirs]);
      }
      return found;
    };
    const logs = captureLogs();
    let sealed: string;
    try {
      sealed = new Keyring({ dataDir: dir }, logs.logger).get().seal('sealed by the late one', CONTEXT);
    } finally {
      fs.existsSync = existsSync;
    }
    assert.ok(raced);
    assert.deepEqual(readKeyFile(dir), [theirs]);
    assert.equal(new SecretBox([keyFromText(theirs)]).open(sealed, CONTEXT), 'sealed by the late one');
    assert.equal(logs.lines.length, 0, 'it did not make the file, so it has nothing to warn of');
    assert.deepEqual(fs.readdirSync(dir), [KEY_FILE]);
  });

  it('with a configured key, makes no file and warns of nothing; the key file still opens what it sealed', () => {
    const fileLogs = captureLogs();
    const sealedWithFile = new Keyring({ dataDir: dir }, fileLogs.logger).get().seal('from the key file days', CONTEXT);
    const fileKeyId = SecretBox.keyIdOf(sealedWithFile);

    const logs = captureLogs();
    const configured = new Keyring({ key: NEW_KEY, dataDir: dir }, logs.logger).get();
    assert.equal(configured.currentKeyId, keyFromText(NEW_KEY).id);
    assert.equal(configured.open(sealedWithFile, CONTEXT), 'from the key file days');
    const resealed = configured.reseal(sealedWithFile, CONTEXT);
    assert.notEqual(SecretBox.keyIdOf(resealed), fileKeyId);
    assert.equal(SecretBox.keyIdOf(resealed), configured.currentKeyId);
    assert.equal(logs.lines.length, 0);

    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-keyring-'));
    try {
      new Keyring({ key: NEW_KEY, dataDir: empty }, logs.logger).get().seal('x', CONTEXT);
      assert.deepEqual(fs.readdirSync(empty), []);
      assert.equal(logs.lines.length, 0);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('opens with a configured previous key what it sealed, and seals anew under the current one', () => {
    const logs = captureLogs();
    const before = new Keyring({ key: OLD_KEY, dataDir: dir }, logs.logger).get();
    const sealed = before.seal('carried over', CONTEXT);
    const after = new Keyring({ key: NEW_KEY, previousKeys: [OLD_KEY], dataDir: dir }, logs.logger).get();
    assert.equal(after.open(sealed, CONTEXT), 'carried over');
    assert.equal(SecretBox.keyIdOf(after.seal('new', CONTEXT)), keyFromText(NEW_KEY).id);
    assert.equal(SecretBox.keyIdOf(after.reseal(sealed, CONTEXT)), keyFromText(NEW_KEY).id);
    // Once the old key is dropped from the configuration, only resealed values open.
    const dropped = new Keyring({ key: NEW_KEY, dataDir: dir }, logs.logger).get();
    assert.throws(() => dropped.open(sealed, CONTEXT), sealBroken(new RegExp(keyFromText(OLD_KEY).id)));
    assert.equal(dropped.open(after.reseal(sealed, CONTEXT), CONTEXT), 'carried over');
  });

  it('refuses at construction a configured key shorter than 32 characters: StartupError config_invalid', () => {
    const logs = captureLogs();
    const short = 'too-short-a-key-0123456789abcde';
    assert.equal(short.length, 31);
    const startupError = (at: RegExp) => (err: unknown) => {
      assert.ok(err instanceof StartupError, String(err));
      assert.equal(err.code, 'config_invalid');
      assert.match(err.message, at);
      assert.ok(!err.message.includes(short), 'the error shows the key');
      return true;
    };
    assert.throws(() => new Keyring({ key: short, dataDir: dir }, logs.logger), startupError(/\/secrets\/key/));
    assert.throws(() => new Keyring({ key: NEW_KEY, previousKeys: [OLD_KEY, short], dataDir: dir }, logs.logger), startupError(/\/secrets\/previousKeys\/1/));
    assert.doesNotThrow(() => new Keyring({ key: `${short}x`, dataDir: dir }, logs.logger));
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

describe('secret key configuration', () => {
  storageIndependent();

  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads TESSERA_SECRET_KEY and the comma-separated TESSERA_PREVIOUS_SECRET_KEYS', () => {
    const previous = ['a'.repeat(32), 'b'.repeat(40)];
    const config = loadConfig({ env: { TESSERA_SECRET_KEY: NEW_KEY, TESSERA_PREVIOUS_SECRET_KEYS: `${previous[0]}, ${previous[1]},` }, cwd: dir });
    assert.equal(config.secrets.key, NEW_KEY);
    assert.deepEqual(config.secrets.previousKeys, previous);
  });

  it('has no key and no previous keys when neither is set', () => {
    const config = loadConfig({ env: {}, cwd: dir });
    assert.equal(config.secrets.key, undefined);
    assert.deepEqual(config.secrets.previousKeys, []);
  });

  it('refuses a key from the environment shorter than 32 characters', () => {
    for (const env of [{ TESSERA_SECRET_KEY: 'short' }, { TESSERA_SECRET_KEY: NEW_KEY, TESSERA_PREVIOUS_SECRET_KEYS: `${OLD_KEY},short` }]) {
      assert.throws(
        () => loadConfig({ env, cwd: dir }),
        (err: unknown) => err instanceof StartupError && err.code === 'config_invalid' && /secrets/.test(err.message),
      );
    }
  });
});
