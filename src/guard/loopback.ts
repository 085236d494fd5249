/** Loopback, as the guard defines it: 127.0.0.0/8, ::1 and localhost (the URL parser normalises 127.1, 0x7f000001, …). */
const LOOPBACK_HOST = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

export function isLoopbackUrl(url: string): boolean {
  try {
    return LOOPBACK_HOST.test(new URL(url).hostname);
  } catch {
    return false;
  }
}
