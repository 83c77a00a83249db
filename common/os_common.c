/* The parts of common/os.h that are the same on every system: written once
 * over the platform calls of os_posix.c and os_win32.c. */
#include "os.h"

#include <stdio.h>

void os_remove_dir(const char *dir)
{
    char **names;
    int n;
    q2err_t e;
    if (os_list_dir(dir, &names, &n, &e)) {
        for (int i = 0; i < n; i++) {
            char p[4096];
            if ((size_t)snprintf(p, sizeof p, "%s%c%s", dir, os_path_sep(), names[i]) < sizeof p) os_remove_file(p);
        }
        os_free_names(names, n);
    }
    os_remove_empty_dir(dir);
}
