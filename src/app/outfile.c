/* outfile.c - output files written beside their target and renamed over
 * it once complete. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static skv_result fail_open(skv_outfile *out, const char *path, int error, skv_error *err)
{
    free(out->target), free(out->temporary);
    memset(out, 0, sizeof *out);
    return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, strerror(error));
}

skv_result outfile_open(skv_outfile *out, const char *path, skv_error *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(path, "-") == 0) {
        out->file = stdout;
        out->is_stdout = 1;
        return SKV_OK;
    }
    struct stat st, link;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return fail_open(out, path, EISDIR, err);
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or a pipe (/dev/stdout): nothing to replace, and its
         * folder is no place for a temporary. */
        out->file = fopen(path, "wb");
        return out->file ? SKV_OK : fail_open(out, path, errno, err);
    }
    /* rename() over a symbolic link would replace the link, not the file
     * it names. */
    int is_link = exists && lstat(path, &link) == 0 && S_ISLNK(link.st_mode);
    out->target = is_link ? realpath(path, NULL) : strdup(path);
    if (!out->target) return fail_open(out, path, errno, err);
    const char *slash = strrchr(out->target, '/');
    int folder = slash ? (int)(slash - out->target + 1) : 0;
    size_t size = strlen(out->target) + sizeof "..XXXXXX";
    out->temporary = malloc(size);
    if (!out->temporary) return fail_open(out, path, ENOMEM, err);
    /* Hidden, and named after the target, should a crash leave it. */
    snprintf(out->temporary, size, "%.*s.%s.XXXXXX", folder, out->target, out->target + folder);
    int fd = mkstemp(out->temporary);
    if (fd < 0) return fail_open(out, path, errno, err);
    /* mkstemp makes the file private (0600); the result gets the mode the
     * old file had, or the one a new file gets. */
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        /* not fatal: the data is what matters */
    }
    out->file = fdopen(fd, "wb");
    if (!out->file) {
        int error = errno;
        close(fd);
        unlink(out->temporary);
        return fail_open(out, path, error, err);
    }
    return SKV_OK;
}

skv_result outfile_commit(skv_outfile *out, const char *path, skv_error *err)
{
    /* A failed write leaves its data in the buffer, so the flush tries it
     * again and errno says why. No fsync: this guards against failed
     * writes, not power loss, and frame sequences would pay for it. */
    errno = 0;
    int failed = fflush(out->file) != 0 || ferror(out->file);
    int error = errno;
    if (out->is_stdout) {
        memset(out, 0, sizeof *out);
        if (failed)
            return skv_fail(err, SKV_ERR_OUTPUT, "cannot write to standard output: %s",
                            error ? strerror(error) : "write error");
        return SKV_OK;
    }
    if (failed && !error && out->temporary) {
        /* The write that failed was an earlier one (data past stdio's
         * buffer: a PNG over 4 KiB) and its errno is gone; one more byte
         * into the temporary, removed below, says why again. */
        clearerr(out->file);
        errno = 0;
        if (fputc(0, out->file) == EOF || fflush(out->file) != 0) error = errno;
    }
    if (fclose(out->file) != 0 && !failed) failed = 1, error = errno;
    out->file = NULL;
    if (!failed && out->temporary && rename(out->temporary, out->target) != 0) failed = 1, error = errno;
    if (failed && out->temporary) unlink(out->temporary);
    free(out->target), free(out->temporary);
    memset(out, 0, sizeof *out);
    if (failed)
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, error ? strerror(error) : "write error");
    return SKV_OK;
}

void outfile_discard(skv_outfile *out)
{
    if (out->is_stdout) fflush(out->file); /* what went out is out */
    else if (out->file) fclose(out->file);
    if (out->temporary) unlink(out->temporary);
    free(out->target), free(out->temporary);
    memset(out, 0, sizeof *out);
}
