/* host_port.h - "host:port" (or "[v6 literal]:port"), as advertise_address and REDIRECT carry
 * an address: the host a client can resolve or dial, the port non-zero. */
#ifndef TRESS_SERVER_HOST_PORT_H
#define TRESS_SERVER_HOST_PORT_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -1 when text is not host:port with a non-empty host of printable bytes (no spaces) that
 * fits host_cap, and a port 1..65535. host gets the host without brackets. */
int tress_host_port_parse(const char *text, char *host, size_t host_cap, uint16_t *port);

#endif
