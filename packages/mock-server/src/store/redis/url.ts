// Redis URLs: one server (`redis://HOST:PORT[/DB]`, `rediss://` with TLS) or a Redis Cluster named by
// some of its nodes (`redis+cluster://[USER:PASSWORD@]HOST:PORT,HOST:PORT`, `rediss+cluster://`), from
// which node-redis learns the others; and the form they take in messages and the banner, without the
// password they may carry.

/** A Redis Cluster URL: the seed nodes as one-server URLs, and the credentials every node is given. */
export interface ClusterUrl {
  nodes: string[];
  username?: string;
  password?: string;
}

const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^@/?#]+)\/?$/;

/** The cluster a `redis+cluster://` URL names; undefined for any other URL (one server). */
export function clusterUrl(url: string): ClusterUrl | undefined {
  if (!/^rediss?\+cluster:/.test(url)) return undefined;
  const match = CLUSTER.exec(url);
  const hosts = match?.[3]?.split(',') ?? [];
  if (!match || hosts.some((host) => !/^[^:,\s]+:\d+$/.test(host))) {
    throw new Error(`${redactedUrl(url)} is not a cluster URL of the form redis+cluster://HOST:PORT,HOST:PORT`);
  }
  const [username, password] = (match[2] ?? '').split(/:(.*)/s).map(decodeURIComponent);
  return {
    nodes: hosts.map((host) => `${match[1]}://${host}`),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

export function redactedUrl(url: string): string {
  if (/^rediss?\+cluster:/.test(url)) return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
