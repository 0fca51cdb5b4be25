/* test_output.c - numbered screenshot files (the window's S key): each a
 * new file with the lowest number not taken; a file that is there, a
 * symbolic link to another file and a link to nowhere are all taken and
 * none is written through. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "output.h"
#include "check.h"

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static int file_is(const char *path, const char *text)
{
    char buf[64] = {0};
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return got == strlen(text) && memcmp(buf, text, got) == 0;
}

static int is_png(const char *path, int width, int height)
{
    int w, h, channels;
    return stbi_info(path, &w, &h, &channels) && w == width && h == height;
}

int main(void)
{
    char dir[] = "/tmp/skv_capture_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char prefix[256], path[300], name[300], target[300];
    snprintf(prefix, sizeof prefix, "%s/model.dae_skinview_", dir);
    snprintf(target, sizeof target, "%s/target.txt", dir);
    put_file(target, "target");
    snprintf(name, sizeof name, "%s1.png", prefix);
    put_file(name, "earlier");
    snprintf(name, sizeof name, "%s2.png", prefix);
    CHECK(symlink(target, name) == 0);
    snprintf(name, sizeof name, "%s4.png", prefix);
    char nowhere[300];
    snprintf(nowhere, sizeof nowhere, "%s/nowhere.png", dir);
    CHECK(symlink(nowhere, name) == 0);

    const unsigned char rgba[2 * 2 * 4] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    skv_error err = {{0}};
    int number = 1;
    CHECK(output_write_png_numbered(prefix, &number, path, sizeof path, 2, 2, rgba, &err) == SKV_OK);
    snprintf(name, sizeof name, "%s3.png", prefix);
    CHECK(strcmp(path, name) == 0 && number == 4);
    CHECK(is_png(name, 2, 2));
    /* From 1 again: 1 to 4 are taken (4 a link to nowhere). */
    number = 1;
    CHECK(output_write_png_numbered(prefix, &number, path, sizeof path, 2, 2, rgba, &err) == SKV_OK);
    snprintf(name, sizeof name, "%s5.png", prefix);
    CHECK(strcmp(path, name) == 0 && number == 6);
    CHECK(is_png(name, 2, 2));

    /* Nothing written through: the file, the link's target, no new file
     * where the dangling link points; the links are still links. */
    snprintf(name, sizeof name, "%s1.png", prefix);
    CHECK(file_is(name, "earlier"));
    CHECK(file_is(target, "target"));
    CHECK(access(nowhere, F_OK) != 0);
    struct stat st;
    snprintf(name, sizeof name, "%s2.png", prefix);
    CHECK(lstat(name, &st) == 0 && S_ISLNK(st.st_mode));
    snprintf(name, sizeof name, "%s4.png", prefix);
    CHECK(lstat(name, &st) == 0 && S_ISLNK(st.st_mode));

    /* A folder that is not there: one error, status 8. */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/folder_", dir);
    number = 1;
    CHECK(output_write_png_numbered(missing, &number, path, sizeof path, 2, 2, rgba, &err) == SKV_ERR_OUTPUT);
    CHECK(strstr(err.message, "cannot create") != NULL);

    for (int n = 1; n <= 5; n++) {
        snprintf(name, sizeof name, "%s%d.png", prefix, n);
        unlink(name);
    }
    unlink(target);
    rmdir(dir);
    return check_summary();
}
