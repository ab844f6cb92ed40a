// A self-signed certificate for loopback (127.0.0.1 and localhost), made with the openssl CLI in a
// temporary directory: https servers in tests, trusted only where a test passes it as a CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface LoopbackCertificate {
  /** PEM: the certificate, which is also its own CA */
  cert: string;
  key: string;
  /** the certificate's file, for settings that take a path */
  certFile: string;
  remove(): void;
}

export function loopbackCertificate(): LoopbackCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
  ], { stdio: 'pipe' });
  return {
    cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
    certFile: path.join(dir, 'cert.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
