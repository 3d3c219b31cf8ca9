/**
 * How a sandboxed command reaches the runtime's filtering proxy (lib/sandbox/net_proxy.ts) when the
 * sandbox's network is filtered by host (--allow-net=host,…). The command runs with no network of its
 * own (bwrap --unshare-net leaves it a loopback only). Before the command, a few lines of Node inside
 * the sandbox listen on that loopback's PROXY_PORT and hand the listening socket to the runtime over
 * the Node IPC channel on fd IPC_FD; then fd IPC_FD is closed and the command runs. From then on the
 * runtime accepts the command's connections itself: a socket keeps the network namespace it was made
 * in, so no bridge process, no Unix socket (the seccomp filter refuses those inside) and nothing
 * listening on the host. The helper makes only an AF_INET socket, so it runs under the same filter.
 * Main thread.
 */
import { realpathSync } from 'node:fs';

/** The port the proxy answers on inside the sandbox (its own loopback: no other program has it). */
export const PROXY_PORT = 3128;
/** The IPC channel's descriptor in the launched process: 3 and 4 are the launcher's (bwrap.ts). */
export const IPC_FD = 5;

/** Runs inside the sandbox; tells the runtime what it hands out, then leaves. */
const HELPER = `const net = require('node:net');
const srv = net.createServer();
const fail = (e) => { process.stderr.write('mewcode sandbox: the network proxy cannot start: ' + e.message + '\\n'); process.exit(125); };
srv.on('error', fail);
srv.listen({ host: '127.0.0.1', port: ${PROXY_PORT}, backlog: 511 }, () => {
  process.send({ mewcode: 'proxy-listener', port: ${PROXY_PORT} }, srv, (e) => {
    if (e) fail(e);
    srv.close();
    process.disconnect();
  });
});`;

/**
 * `$1` is node and `$2` the helper, run with an environment of its own: the command's variables
 * (NODE_OPTIONS naming a file the agent wrote, say) must not run code while the channel is open; it
 * alone is told the channel's variables (bwrap's --clearenv dropped the ones Node set). The listener
 * handed out, the channel is closed before the command runs, so the command can never send the
 * runtime anything.
 */
const PREFIX = `env -i NODE_CHANNEL_FD=${IPC_FD} NODE_CHANNEL_SERIALIZATION_MODE=json "$1" --max-old-space-size=64 -e "$2" || exit 125
exec ${IPC_FD}>&-
shift 2
exec "$@"`;

/** Node's own binary, as the sandbox shows it (view.ts binds it when it is not there already). */
export function helperNode(): string {
  return realpathSync(process.execPath);
}

/** The command's argv inside the sandbox, behind the helper. */
export function behindHelper(argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', PREFIX, 'mewcode-proxy', helperNode(), HELPER, ...argv];
}

/**
 * The variables that send programs to the proxy, both cases (curl and git read only the lower-case
 * http_proxy), SOCKS with the name resolved by the proxy (socks5h: the sandbox has no DNS), and an
 * empty NO_PROXY (a user's `localhost,127.0.0.1` would take allowed loopback hosts off the proxy).
 */
export function proxyEnv(): Record<string, string> {
  const http = `http://127.0.0.1:${PROXY_PORT}`;
  const socks = `socks5h://127.0.0.1:${PROXY_PORT}`;
  return {
    HTTP_PROXY: http,
    http_proxy: http,
    HTTPS_PROXY: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: '',
    no_proxy: '',
    NODE_USE_ENV_PROXY: '1', // Node releases that know it (24 on) honour the variables then; Node 20 ignores them
  };
}
