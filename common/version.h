/* The release version, set once in CMakeLists.txt (project VERSION), and the
 * git description of the checkout it was built from, for every program's
 * -version and for logs. */
#ifndef Q2M_VERSION_H
#define Q2M_VERSION_H

/* "0.1.0", the release. */
const char *q2map_version(void);
/* "0.1.0 (git 6292b4e-dirty)", or just the release when not built from a
 * git checkout (an unpacked source archive). */
const char *q2map_version_long(void);

#endif
