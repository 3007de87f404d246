import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { parseBaseUrl } from '../../src/api/base-url.js';

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/prefix/', 'https://api.example.com/prefix'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://127.8.9.10', 'http://127.8.9.10'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('accepts %s', (raw, expected) => {
    expect(parseBaseUrl(raw)).toBe(expected);
  });

  it.each([
    ['http://api.example.com', 'INSECURE_BASE_URL'],
    ['http://128.0.0.1', 'INSECURE_BASE_URL'],
    ['http://10.0.0.1:8080', 'INSECURE_BASE_URL'],
    ['http://127.0.0.1.example.com', 'INSECURE_BASE_URL'],
    ['http://[::2]', 'INSECURE_BASE_URL'],
    ['ftp://api.example.com', 'INVALID_BASE_URL'],
    ['api.example.com', 'INVALID_BASE_URL'],
    ['https://user:pass@api.example.com', 'INVALID_BASE_URL'],
    ['https://api.example.com/?x=1', 'INVALID_BASE_URL'],
  ])('refuses %s', (raw, code) => {
    let caught: unknown;
    try {
      parseBaseUrl(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UserError);
    expect((caught as UserError).code).toBe(code);
    expect((caught as UserError).message.split('\n')).toHaveLength(1);
  });
});
