import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { classifyAddress, validateReceiverUrl } from '../../src/notifications/ssrf.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4-mapped loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped loopback'],
    ['::FFFF:10.0.0.1', 'ipv4-mapped private'],
    ['::ffff:169.254.169.254', 'ipv4-mapped link-local'],
    ['::127.0.0.1', 'ipv4-compatible loopback'],
    ['::a00:1', 'ipv4-compatible private'],
    ['64:ff9b::a00:1', 'nat64 private'],
    ['64:ff9b::127.0.0.1', 'nat64 loopback'],
    ['64:ff9b:1::a00:1', 'nat64 local-use'],
    ['2002:c0a8:0101::1', '6to4 private'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo documentation'],
    ['2001:0:4136:e378::80ff:fffe', 'teredo loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::2', 'ipv4-compatible reserved'],
    ['not an address', 'invalid'],
    ['[::1]', 'invalid'],
    ['', 'invalid'],
  ])('%s is %s', (ip, range) => {
    expect(classifyAddress(ip)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.88.98.1',
    '223.255.255.255',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378::f7f7:f7f7',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });
});

describe('validateReceiverUrl', () => {
  const strict = { allowHttp: false, allowPrivateNetworks: false };

  it.each([
    ['https://hooks.example.com/clipgate?tenant=1', strict],
    ['https://8.8.8.8/hook', strict],
    ['https://[2606:4700::1111]:8443/hook', strict],
    ['https://localhost/hook', strict], // names are checked after resolution, on every connection
    ['http://hooks.example.com/hook', { allowHttp: true, allowPrivateNetworks: false }],
    ['https://127.0.0.1:8080/hook', { allowHttp: false, allowPrivateNetworks: true }],
    ['https://[fd00::1]/hook', { allowHttp: false, allowPrivateNetworks: true }],
  ])('accepts %s', (url, options) => {
    expect(validateReceiverUrl(url, options).href).toBe(new URL(url).href);
  });

  const longUrl = `https://hooks.example.com/${'a'.repeat(2048)}`;
  it.each([
    [42, strict, 'url must be a string'],
    [undefined, strict, 'url must be a string'],
    ['not a url', strict, 'url must be an absolute URL'],
    ['/relative/path', strict, 'url must be an absolute URL'],
    [longUrl, strict, 'url must be at most 2048 characters'],
    ['http://hooks.example.com/', strict, 'url must use https'],
    [
      'ftp://hooks.example.com/',
      { allowHttp: true, allowPrivateNetworks: false },
      'url must use https or http',
    ],
    [
      'https://user:secret@hooks.example.com/',
      strict,
      'url must not contain a username or password',
    ],
    ['https://user@hooks.example.com/', strict, 'url must not contain a username or password'],
    ['https://127.0.0.1/hook', strict, 'url points to a non-public address (loopback)'],
    ['https://2130706433/hook', strict, 'url points to a non-public address (loopback)'],
    ['https://0x7f.1/hook', strict, 'url points to a non-public address (loopback)'],
    ['https://[::1]/hook', strict, 'url points to a non-public address (loopback)'],
    [
      'https://[::ffff:127.0.0.1]/',
      strict,
      'url points to a non-public address (ipv4-mapped loopback)',
    ],
    ['https://10.0.0.1/', strict, 'url points to a non-public address (private)'],
    [
      'https://169.254.169.254/latest/meta-data',
      strict,
      'url points to a non-public address (link-local)',
    ],
    ['https://[fd00::1]/', strict, 'url points to a non-public address (unique-local)'],
    ['https://0.0.0.0/', strict, 'url points to a non-public address (unspecified)'],
    [
      'http://192.168.1.10/',
      { allowHttp: true, allowPrivateNetworks: false },
      'url points to a non-public address (private)',
    ],
  ])('refuses %s', (url, options, message) => {
    let error: unknown;
    try {
      validateReceiverUrl(url, options);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message, details: { field: 'url' } });
  });
});
