/* program_cache.c - linked GL programs kept across runs (program_cache.h).
 * An entry is one file named by a hash of its key:
 *   "SKVPROG2", binary format (u32), key size (u64), binary size (u64),
 *   check (u64: FNV-1a over the key, the format and the binary), the key,
 *   the binary
 * written to a temporary file in the folder and renamed over the entry, so
 * that a reader sees a whole entry or none. The check ties the binary to
 * its key: drivers check their binaries' own bytes, but another
 * program's binary, whole, would be taken (a spoilt or hand-edited
 * folder), and the draw would then miss the interface it expects. */
#include "program_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char MAGIC[8] = {'S', 'K', 'V', 'P', 'R', 'O', 'G', '2'};
enum { HEADER = 8 + 4 + 8 + 8 + 8 };
/* The folder's bounds, kept when an entry is stored (prune): at most
 * ENTRIES_MAX entries, the least recently stored removed first (every
 * Skinview version, driver and model kind adds its own); temporary files
 * older than STALE_SECONDS (a run stopped while storing) removed. */
enum { ENTRIES_MAX = 256, STALE_SECONDS = 3600 };
/* Past these an entry is not one of ours (a program's binary is tens of
 * kilobytes to a few megabytes, its key its sources: tens of kilobytes). */
#define KEY_MAX ((uint64_t)1 << 20)
#define BINARY_MAX ((uint64_t)64 << 20)

int program_cache_usable(void)
{
    if (!GLAD_GL_ARB_get_program_binary || !glProgramBinary || !glGetProgramBinary) return 0;
    const char *off = getenv("SKINVIEW_PROGRAM_CACHE");
    if (off && strcmp(off, "off") == 0) return 0;
    GLint formats = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    return formats > 0;
}

/* The folder, made if missing (0700: the user's programs); 0 where there
 * is none (no XDG_CACHE_HOME or HOME, or it cannot be made). */
static int cache_folder(char *out, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(out, size, "%s", xdg);
    else if (home && home[0] == '/') n = snprintf(out, size, "%s/.cache", home);
    else return 0;
    if (n < 0 || (size_t)n >= size) return 0;
    static const char *const parts[] = {"/skinview", "/programs"};
    for (int i = 0; i < 2; i++) {
        if (mkdir(out, 0700) != 0 && errno != EEXIST) return 0;
        size_t len = strlen(out);
        if (len + strlen(parts[i]) + 1 > size) return 0;
        memcpy(out + len, parts[i], strlen(parts[i]) + 1);
    }
    return mkdir(out, 0700) == 0 || errno == EEXIST;
}

/* 64-bit FNV-1a of `size` bytes, on from `h` (FNV_START for a first
 * part): names the file (the key inside it decides), and checks an
 * entry's parts. */
#define FNV_START 14695981039346656037ull
static uint64_t fnv1a(uint64_t h, const void *bytes, size_t size)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < size; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const char *key, size_t size)
{
    return fnv1a(FNV_START, key, size);
}

static uint64_t entry_check(const char *key, size_t key_size, uint32_t format, const void *binary, size_t size)
{
    return fnv1a(fnv1a(fnv1a(FNV_START, key, key_size), &format, sizeof format), binary, size);
}

static int entry_path_in(const char *folder, const char *key, size_t key_size, char *out, size_t size)
{
    int n = snprintf(out, size, "%s/%016llx.bin", folder, (unsigned long long)key_hash(key, key_size));
    return n > 0 && (size_t)n < size;
}

static int entry_path(const char *key, size_t key_size, char *out, size_t size)
{
    char folder[4096];
    return cache_folder(folder, sizeof folder) && entry_path_in(folder, key, key_size, out, size);
}

/* Whether the driver takes binaries in `format`: glProgramBinary reports
 * any other as a GL error (which fails a --debug run), not a refusal. */
static int known_format(GLenum format)
{
    GLint count = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &count);
    if (count <= 0 || count > 4096) return 0;
    GLint *formats = malloc((size_t)count * sizeof *formats);
    if (!formats) return 0;
    glGetIntegerv(GL_PROGRAM_BINARY_FORMATS, formats);
    int found = 0;
    for (GLint i = 0; i < count && !found; i++) found = (GLenum)formats[i] == format;
    free(formats);
    return found;
}

static int read_all(int fd, void *buf, size_t size)
{
    char *p = buf;
    while (size > 0) {
        ssize_t got = read(fd, p, size);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            return 0;
        }
        p += got, size -= (size_t)got;
    }
    return 1;
}

static int write_all(int fd, const void *buf, size_t size)
{
    const char *p = buf;
    while (size > 0) {
        ssize_t put = write(fd, p, size);
        if (put <= 0) {
            if (put < 0 && errno == EINTR) continue;
            return 0;
        }
        p += put, size -= (size_t)put;
    }
    return 1;
}

GLuint program_cache_load(const char *key, size_t key_size)
{
    char path[4200];
    if (!entry_path(key, key_size, path, sizeof path)) return 0;
    /* O_NONBLOCK: a FIFO in the entry's place is not waited on (fstat
     * turns it away); reads of a regular file are not changed by it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return 0;
    GLuint program = 0;
    unsigned char header[HEADER];
    char *stored_key = NULL, *binary = NULL;
    struct stat st;
    uint32_t format;
    uint64_t stored_key_size, binary_size, check;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !read_all(fd, header, sizeof header) ||
        memcmp(header, MAGIC, sizeof MAGIC) != 0)
        goto done;
    memcpy(&format, header + 8, 4);
    memcpy(&stored_key_size, header + 12, 8);
    memcpy(&binary_size, header + 20, 8);
    memcpy(&check, header + 28, 8);
    if (stored_key_size != key_size || key_size > KEY_MAX || binary_size == 0 || binary_size > BINARY_MAX ||
        (uint64_t)st.st_size != HEADER + stored_key_size + binary_size)
        goto done;
    stored_key = malloc(key_size > 0 ? key_size : 1);
    binary = malloc((size_t)binary_size);
    if (!stored_key || !binary || !read_all(fd, stored_key, key_size) || memcmp(stored_key, key, key_size) != 0 ||
        !read_all(fd, binary, (size_t)binary_size) ||
        entry_check(key, key_size, format, binary, (size_t)binary_size) != check || !known_format((GLenum)format))
        goto done;
    program = glCreateProgram();
    glProgramBinary(program, (GLenum)format, binary, (GLsizei)binary_size);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) { /* the driver refused it (another build, a corrupt binary): built again, stored over */
        glDeleteProgram(program);
        program = 0;
    }
    while (glGetError() != GL_NO_ERROR) {
    } /* a refused binary may leave GL_INVALID_ENUM behind */
done:
    free(stored_key);
    free(binary);
    close(fd);
    return program;
}

/* An entry's name: 16 hexadecimal digits and ".bin"; a temporary one's,
 * that and "." and mkstemp's six characters. Nothing else in the folder
 * is touched. */
static int entry_name(const char *name, int temporary)
{
    for (int i = 0; i < 16; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
    if (strncmp(name + 16, ".bin", 4) != 0) return 0;
    return temporary ? name[20] == '.' && strlen(name + 21) == 6 : name[20] == '\0';
}

typedef struct kept_entry {
    char name[24];
    struct timespec stored;
} kept_entry;

static int older_first(const void *a, const void *b)
{
    const struct timespec *x = &((const kept_entry *)a)->stored, *y = &((const kept_entry *)b)->stored;
    if (x->tv_sec != y->tv_sec) return x->tv_sec < y->tv_sec ? -1 : 1;
    return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* The folder within its bounds (ENTRIES_MAX, STALE_SECONDS); best effort.
 * `stored`: the entry just stored (its name), never removed. An entry
 * dated later than now was stored before a clock was moved back (or in a
 * folder from a machine whose clock ran ahead): before any stored since,
 * so it goes first; else every store would remove the run's own entries
 * until the clock caught up. */
static void prune(const char *folder, const char *stored)
{
    DIR *dir = opendir(folder);
    if (!dir) return;
    int dir_fd = dirfd(dir);
    kept_entry *entries = NULL;
    size_t count = 0, room = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        int temporary = entry_name(e->d_name, 1);
        if (!temporary && !entry_name(e->d_name, 0)) continue;
        struct stat st;
        if (fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (temporary) {
            if (now - st.st_mtime > STALE_SECONDS) unlinkat(dir_fd, e->d_name, 0);
            continue;
        }
        if (strcmp(e->d_name, stored) == 0) continue;
        if (count == room) {
            size_t more = room ? 2 * room : 64;
            kept_entry *grown = realloc(entries, more * sizeof *grown);
            if (!grown) break;
            entries = grown, room = more;
        }
        memcpy(entries[count].name, e->d_name, 21);
        entries[count++].stored = st.st_mtim.tv_sec > now ? (struct timespec){0, 0} : st.st_mtim;
    }
    if (count + 1 > ENTRIES_MAX) { /* the others, and the one stored */
        qsort(entries, count, sizeof *entries, older_first);
        for (size_t i = 0; i < count + 1 - ENTRIES_MAX; i++) unlinkat(dir_fd, entries[i].name, 0);
    }
    free(entries);
    closedir(dir);
}

void program_cache_store(GLuint program, const char *key, size_t key_size)
{
    if (key_size > KEY_MAX) return;
    GLint length = 0;
    glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
    if (length <= 0 || (uint64_t)length > BINARY_MAX) return;
    char folder[4096], path[4200], temporary[4300];
    if (!cache_folder(folder, sizeof folder) || !entry_path_in(folder, key, key_size, path, sizeof path)) return;
    void *binary = malloc((size_t)length);
    if (!binary) return;
    GLsizei got = 0;
    GLenum format = 0;
    glGetProgramBinary(program, length, &got, &format, binary);
    int fd = -1;
    if (got <= 0 || got > length) goto done;
    if (snprintf(temporary, sizeof temporary, "%s.XXXXXX", path) >= (int)sizeof temporary) goto done;
    fd = mkstemp(temporary);
    if (fd < 0) goto done;
    unsigned char header[HEADER];
    uint32_t format32 = (uint32_t)format;
    uint64_t key64 = key_size, binary64 = (uint64_t)got;
    uint64_t check = entry_check(key, key_size, format32, binary, (size_t)got);
    memcpy(header, MAGIC, sizeof MAGIC);
    memcpy(header + 8, &format32, 4);
    memcpy(header + 12, &key64, 8);
    memcpy(header + 20, &binary64, 8);
    memcpy(header + 28, &check, 8);
    int ok = write_all(fd, header, sizeof header) && write_all(fd, key, key_size) &&
             write_all(fd, binary, (size_t)got);
    ok = close(fd) == 0 && ok;
    fd = -1;
    if (!ok || rename(temporary, path) != 0) unlink(temporary);
    else prune(folder, strrchr(path, '/') + 1);
done:
    while (glGetError() != GL_NO_ERROR) {
    }
    free(binary);
}
