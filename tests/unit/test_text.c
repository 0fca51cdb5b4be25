/* test_text.c - escaping names and messages for a line and for JSON. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "text.h"

/* What `put` writes for `text`, malloc'd. */
static char *written(void (*put)(FILE *, const char *), const char *text)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buffer, &size);
    if (!f) return strdup("");
    put(f, text);
    fclose(f);
    return buffer;
}

static int writes(void (*put)(FILE *, const char *), const char *text, const char *expected)
{
    char *got = written(put, text);
    int same = strcmp(got, expected) == 0;
    if (!same) fprintf(stderr, "  wrote \"%s\", expected \"%s\"\n", got, expected);
    free(got);
    return same;
}

static void test_line(void)
{
    CHECK(writes(text_put_line, "plain name", "plain name"));
    CHECK(writes(text_put_line, "clip\x1b[2J\x1b[H", "clip\\x1b[2J\\x1b[H"));
    CHECK(writes(text_put_line, "a\nv 1 2 3\r\a", "a\\x0av 1 2 3\\x0d\\x07"));
    CHECK(writes(text_put_line, "tab\tdel\x7f", "tab\\x09del\\x7f"));
    /* Backslashes and quotes stay: escaping twice changes nothing more. */
    CHECK(writes(text_put_line, "C:\\tex\\x1b \"q\"", "C:\\tex\\x1b \"q\""));
    /* Well-formed UTF-8 stays; C1 controls (CSI is U+009B) do not. */
    CHECK(writes(text_put_line, "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x92\x80", "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x92\x80"));
    CHECK(writes(text_put_line, "\xc2\x9b" "2J", "\\xc2\\x9b2J"));
    /* Ill-formed: a lone continuation, a cut sequence, overlong, surrogate. */
    CHECK(writes(text_put_line, "\x80x\xe2\x82", "\\x80x\\xe2\\x82"));
    CHECK(writes(text_put_line, "\xc0\xaf\xed\xa0\x80\xff", "\\xc0\\xaf\\xed\\xa0\\x80\\xff"));
}

static void test_capped(void)
{
    char out[64];
    CHECK(strcmp(text_line(out, sizeof out, "short\n", 300), "short\\x0a") == 0);
    /* Exactly max_chars: no cut. One more: cut to max_chars with the "…". */
    CHECK(strcmp(text_line(out, sizeof out, "0123456789", 10), "0123456789") == 0);
    CHECK(strcmp(text_line(out, sizeof out, "0123456789A", 10), "012345678\xe2\x80\xa6") == 0);
    /* An escape is not split. */
    CHECK(strcmp(text_line(out, sizeof out, "0123456\x1b", 10), "0123456\xe2\x80\xa6") == 0);
    /* Nor is a UTF-8 character, when the buffer is the limit. */
    char small[8];
    CHECK(strcmp(text_line(small, sizeof small, "abc\xc3\xa9\xc3\xa9\xc3\xa9", 300), "abc\xe2\x80\xa6") == 0);
    /* A huge message: bounded, one line. */
    size_t huge = 1000000;
    char *message = malloc(huge + 1);
    if (!message) return;
    for (size_t i = 0; i < huge; i++) message[i] = i % 80 == 79 ? '\n' : 'x';
    message[huge] = '\0';
    char line[1024];
    text_line(line, sizeof line, message, 300);
    CHECK(strlen(line) <= 299 + 3 && strcmp(line + strlen(line) - 3, "\xe2\x80\xa6") == 0);
    CHECK(strchr(line, '\n') == NULL);
    free(message);
}

static void test_json(void)
{
    CHECK(writes(text_put_json, "say \"hi\" \\o/", "\"say \\\"hi\\\" \\\\o/\""));
    CHECK(writes(text_put_json, "\x1b[2J\a\r\n\x7f", "\"\\u001b[2J\\u0007\\u000d\\u000a\\u007f\""));
    CHECK(writes(text_put_json, "caf\xc3\xa9 \xc2\x9b", "\"caf\xc3\xa9 \\u009b\""));
    /* One U+FFFD per maximal ill-formed subpart, as Python decodes it:
     * E2 82 (cut) is one, E0 80 (E0 needs A0-BF next) is two. */
    CHECK(writes(text_put_json, "\xe2\x82!\xe0\x80!\xff", "\"\\ufffd!\\ufffd\\ufffd!\\ufffd\""));
    CHECK(writes(text_put_json, "", "\"\""));
}

/* A name as --list --json prints it, read back, matches the name. */
static void test_same_as_json(void)
{
    CHECK(text_same_as_json("mixamorig:Spine", "mixamorig:Spine"));
    CHECK(!text_same_as_json("mixamorig:Spine", "mixamorig:Spin"));
    CHECK(!text_same_as_json("mixamorig:Spin", "mixamorig:Spine"));
    CHECK(text_same_as_json("\x1b[2J\a", "\x1b[2J\a")); /* escapes read back as their bytes */
    CHECK(text_same_as_json("hip\xff\xfe bad \xc3(", "hip\xef\xbf\xbd\xef\xbf\xbd bad \xef\xbf\xbd("));
    CHECK(text_same_as_json("\xe2\x82!\xe0\x80!\xff", "\xef\xbf\xbd!\xef\xbf\xbd\xef\xbf\xbd!\xef\xbf\xbd"));
    CHECK(!text_same_as_json("\xe2\x82!", "\xef\xbf\xbd\xef\xbf\xbd!")); /* one U+FFFD for E2 82 */
    CHECK(!text_same_as_json("\xff", "\xef\xbf")); /* a cut U+FFFD */
    CHECK(!text_same_as_json("\xff", ""));
    CHECK(text_same_as_json("", ""));
}

int main(void)
{
    test_line();
    test_capped();
    test_json();
    test_same_as_json();
    return check_summary();
}
