/**
 * A certificate for loopback HTTPS servers, made by openssl at test time (installed by .ci/run): for
 * 127.0.0.1 and localhost, valid two days, in a temp dir the caller's test removes with its tree.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCert {
  key: Buffer;
  cert: Buffer;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS or curl --cacert. */
  certFile: string;
}

export function loopbackCert(dir: string): TestCert {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0)
    throw new Error(
      `openssl could not make a test certificate (apt-get install openssl): ${made.stderr || made.error}`,
    );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}
