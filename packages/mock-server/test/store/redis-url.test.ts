// Redis URLs: a cluster named by some of its nodes, read into what node-redis needs; and every URL as
// it is shown in messages and the banner, without its password.
import { describe, expect, it } from 'vitest';
import { clusterUrl, redactedUrl } from '../../src/store/redis/url.js';

describe('Redis URLs', () => {
  it('read a cluster URL into its seed nodes and credentials; one server is no cluster', () => {
    expect(clusterUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      nodes: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001'],
    });
    expect(clusterUrl('rediss+cluster://app:p%40ss:word@h1:7000/')).toEqual({
      nodes: ['rediss://h1:7000'],
      username: 'app',
      password: 'p@ss:word',
    });
    expect(clusterUrl('redis://h1:6379/2')).toBeUndefined();
  });

  it('refuse a cluster URL without a port on each node, naming the form, without the password', () => {
    for (const url of ['redis+cluster://h1,h2:7001', 'redis+cluster://', 'redis+cluster://:secret@h1:7000/0']) {
      expect(() => clusterUrl(url)).toThrow(/redis\+cluster:\/\/HOST:PORT,HOST:PORT/);
      expect(() => clusterUrl(url)).not.toThrow(/secret/);
    }
  });

  it('show no password, of one server or of a cluster', () => {
    expect(redactedUrl('redis://:secret@h1:6379/2')).toBe('redis://:***@h1:6379/2');
    expect(redactedUrl('redis+cluster://app:secret@h1:7000,h2:7001')).toBe('redis+cluster://app:***@h1:7000,h2:7001');
    expect(redactedUrl('redis+cluster://h1:7000,h2:7001')).toBe('redis+cluster://h1:7000,h2:7001');
  });
});
