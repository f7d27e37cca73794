/* mesh_hash_hex.h - a mesh file's content hash as the server names it (64 hex digits). */
#ifndef TRESS_TEST_MESH_HASH_HEX_H
#define TRESS_TEST_MESH_HASH_HEX_H

/* Loads the mesh at path (the test fails if it cannot) and writes its content hash in hex. */
void mesh_file_hash_hex(const char *path, char hex[65]);

#endif
