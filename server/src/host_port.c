/* host_port.c - the one parser of "host:port" addresses (advertise_address, and room lease values
 * read back from Redis, which another server wrote). */
#include "host_port.h"

#include <stdlib.h>
#include <string.h>

int tress_host_port_parse(const char *text, char *host, size_t host_cap, uint16_t *port) {
  if (!text || !host || host_cap == 0) return -1;
  const char *colon = strrchr(text, ':');
  if (!colon || colon == text) return -1;
  const char *h = text;
  size_t n = (size_t)(colon - text);
  if (text[0] == '[') { /* [v6]:port */
    if (n < 3 || colon[-1] != ']') return -1;
    h = text + 1;
    n -= 2;
  } else if (memchr(text, ':', n)) {
    return -1; /* a bare v6 literal: the port would be ambiguous */
  }
  if (n == 0 || n >= host_cap) return -1;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)h[i] <= ' ' || (unsigned char)h[i] >= 0x7f || h[i] == '[' || h[i] == ']') return -1;
  const char *digits = colon + 1;
  if (!digits[0] || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 5) return -1;
  long p = strtol(digits, NULL, 10);
  if (p < 1 || p > 65535) return -1;
  memcpy(host, h, n);
  host[n] = '\0';
  *port = (uint16_t)p;
  return 0;
}
