/* text.c - escaping names and messages from files for a terminal line, an
 * OBJ line, or JSON. */
#include "text.h"

#include <string.h>

/* Length of the well-formed UTF-8 sequence at `s` (1-4). If there is none,
 * returns 0 and sets `*bad` to the length of the maximal ill-formed
 * subpart (at least 1): the bytes that Unicode's recommended practice,
 * and Python, turn into one U+FFFD. The NUL terminator is never a
 * continuation byte, so a sequence cut by the end of the string is bad. */
static int utf8_sequence(const unsigned char *s, int *bad)
{
    unsigned lead = s[0], low = 0x80, high = 0xbf;
    int continuations;
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) continuations = 1;
    else if (lead == 0xe0) continuations = 2, low = 0xa0;       /* no overlong forms */
    else if (lead == 0xed) continuations = 2, high = 0x9f;      /* no surrogates */
    else if (lead >= 0xe1 && lead <= 0xef) continuations = 2;
    else if (lead == 0xf0) continuations = 3, low = 0x90;       /* no overlong forms */
    else if (lead == 0xf4) continuations = 3, high = 0x8f;      /* nothing past U+10FFFF */
    else if (lead >= 0xf1 && lead <= 0xf3) continuations = 3;
    else {
        *bad = 1;
        return 0;
    }
    for (int k = 1; k <= continuations; k++) {
        if (s[k] < low || s[k] > high) {
            *bad = k;
            return 0;
        }
        low = 0x80, high = 0xbf; /* the special ranges apply to the second byte only */
    }
    return continuations + 1;
}

/* The next piece of `s` as one line shows it: writes it to `piece` (at
 * most 4 bytes, not terminated), its length to `*piece_len` and its width
 * in characters to `*chars`; returns how many bytes of `s` it stands for. */
static size_t next_piece(const unsigned char *s, char piece[4], size_t *piece_len, size_t *chars)
{
    static const char hex[] = "0123456789abcdef";
    int bad = 0, length = utf8_sequence(s, &bad);
    /* C1 controls (U+0080-U+009F, C2 80-C2 9F) act as escape sequences
     * in some terminals, so they are escaped like C0. */
    int control = length == 1 ? (s[0] < 0x20 || s[0] == 0x7f) : length == 2 && s[0] == 0xc2 && s[1] < 0xa0;
    if (length > 0 && !control) {
        memcpy(piece, s, (size_t)length);
        *piece_len = (size_t)length;
        *chars = 1;
        return (size_t)length;
    }
    /* One byte at a time: a control character's first byte, or a byte of
     * an ill-formed sequence. */
    piece[0] = '\\', piece[1] = 'x', piece[2] = hex[s[0] >> 4], piece[3] = hex[s[0] & 15];
    *piece_len = 4;
    *chars = 4;
    return 1;
}

void text_put_line(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        char piece[4];
        size_t piece_len, chars;
        s += next_piece(s, piece, &piece_len, &chars);
        fwrite(piece, 1, piece_len, out);
    }
}

char *text_line(char *out, size_t size, const char *text, size_t max_chars)
{
    static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
    if (size == 0) return out;
    const unsigned char *start = (const unsigned char *)(text ? text : "");
    /* Whether all of it fits decides whether room is kept for "…". */
    size_t total_bytes = 0, total_chars = 0;
    for (const unsigned char *s = start; *s;) {
        char piece[4];
        size_t piece_len, chars;
        s += next_piece(s, piece, &piece_len, &chars);
        total_bytes += piece_len, total_chars += chars;
    }
    int cut = total_bytes > size - 1 || total_chars > max_chars;
    size_t byte_limit = size - 1, char_limit = max_chars;
    if (cut) {
        byte_limit = byte_limit >= sizeof ellipsis - 1 ? byte_limit - (sizeof ellipsis - 1) : 0;
        char_limit = char_limit >= 1 ? char_limit - 1 : 0;
    }
    size_t bytes = 0, used_chars = 0;
    for (const unsigned char *s = start; *s;) {
        char piece[4];
        size_t piece_len, chars;
        size_t consumed = next_piece(s, piece, &piece_len, &chars);
        if (bytes + piece_len > byte_limit || used_chars + chars > char_limit) break;
        memcpy(out + bytes, piece, piece_len);
        bytes += piece_len, used_chars += chars;
        s += consumed;
    }
    if (cut && bytes + sizeof ellipsis - 1 <= size - 1) {
        memcpy(out + bytes, ellipsis, sizeof ellipsis - 1);
        bytes += sizeof ellipsis - 1;
    }
    out[bytes] = '\0';
    return out;
}

void text_put_json(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    fputc('"', out);
    while (*s) {
        int bad = 0, length = utf8_sequence(s, &bad);
        if (length == 0) {
            fputs("\\ufffd", out);
            s += bad;
        } else if (length == 1 && (*s == '"' || *s == '\\')) {
            fprintf(out, "\\%c", *s++);
        } else if (length == 1 && (*s < 0x20 || *s == 0x7f)) {
            fprintf(out, "\\u%04x", *s++); /* DEL too: the JSON may land on a terminal */
        } else if (length == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
            fprintf(out, "\\u%04x", s[1]); /* C1 controls: U+0080-U+009F */
            s += 2;
        } else {
            fwrite(s, 1, (size_t)length, out);
            s += length;
        }
    }
    fputc('"', out);
}

int text_same_as_json(const char *text, const char *printed)
{
    /* strncmp, not memcmp: it stops at printed's end (a sequence's bytes
     * are never 0). */
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    const char *p = printed;
    while (*s) {
        int bad = 0, length = utf8_sequence(s, &bad);
        if (length == 0) {
            if (strncmp(p, "\xef\xbf\xbd", 3) != 0) return 0;
            s += bad, p += 3;
        } else {
            if (strncmp(p, (const char *)s, (size_t)length) != 0) return 0;
            s += length, p += length;
        }
    }
    return *p == '\0';
}
