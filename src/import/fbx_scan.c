/* fbx_scan.c - what Assimp's FBX reader drops, read from the file beside
 * it (private/fbx_scan.h): each blend-shape channel's DeformPercent, the
 * weight the shape rests at (Assimp gives every shape 1). Binary FBX
 * (node records, 32- or 64-bit offsets by version) and ASCII FBX; every
 * offset and length is checked against the bytes, the nesting bounded. */
#define _GNU_SOURCE /* memmem */
#include "private/fbx_scan.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { FBX_MAX_DEPTH = 64 };

static const char binary_magic[] = "Kaydara FBX Binary  ";

typedef struct scan {
    const unsigned char *bytes;
    size_t size;
    int wide; /* 64-bit record fields (version 7500 and up) */
    fbx_percent *out;
    int capacity, found;
} scan;

static uint64_t get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void add(scan *s, const char *name, size_t length, double percent)
{
    if (s->found < s->capacity) {
        fbx_percent *p = &s->out[s->found];
        size_t n = length < sizeof p->name - 1 ? length : sizeof p->name - 1;
        memcpy(p->name, name, n);
        p->name[n] = '\0';
        p->percent = percent;
    }
    s->found++;
}

/* The size of the property at `p` (within `end`), or 0 where malformed;
 * a string's bytes and length into *text / *text_length. */
static size_t property_size(const unsigned char *p, const unsigned char *end, const unsigned char **text,
                            size_t *text_length)
{
    if (p >= end) return 0;
    size_t left = (size_t)(end - p);
    switch (p[0]) {
    case 'Y': return left >= 3 ? 3 : 0;
    case 'C': return left >= 2 ? 2 : 0;
    case 'I': case 'F': return left >= 5 ? 5 : 0;
    case 'D': case 'L': return left >= 9 ? 9 : 0;
    case 'S': case 'R': {
        if (left < 5) return 0;
        uint64_t n = get(p + 1, 4);
        if (n > left - 5) return 0;
        if (text) *text = p + 5, *text_length = (size_t)n;
        return (size_t)n + 5;
    }
    case 'f': case 'd': case 'l': case 'i': case 'b': {
        if (left < 13) return 0;
        uint64_t count = get(p + 1, 4), encoding = get(p + 5, 4), compressed = get(p + 9, 4);
        uint64_t element = p[0] == 'd' || p[0] == 'l' ? 8 : p[0] == 'b' ? 1 : 4;
        uint64_t n = encoding ? compressed : count * element;
        if (n > left - 13) return 0;
        return (size_t)n + 13;
    }
    default: return 0;
    }
}

/* The records from `at` to `end` at `depth`; `in_channel`: within a
 * BlendShapeChannel deformer named `name`. 0, or -1 where malformed. */
static int walk(scan *s, size_t at, size_t end, int depth, const unsigned char *name, size_t name_length)
{
    int field = s->wide ? 8 : 4;
    size_t header = (size_t)field * 3 + 1;
    if (depth > FBX_MAX_DEPTH) return -1;
    while (at + header <= end) {
        const unsigned char *r = s->bytes + at;
        uint64_t record_end = get(r, field), properties = get(r + field, field), list = get(r + 2 * field, field);
        unsigned name_len = r[3 * field];
        if (record_end == 0) return 0; /* the null record that closes a list */
        if (record_end <= at || record_end > end || at + header + name_len > end) return -1;
        const unsigned char *record_name = r + header, *p = record_name + name_len;
        if ((uint64_t)(p - s->bytes) > record_end || list > record_end - (uint64_t)(p - s->bytes)) return -1;
        const unsigned char *props_end = p + list;
        /* Properties: a channel deformer's name and class; a percent's value. */
        const unsigned char *texts[3] = {NULL};
        size_t text_lengths[3] = {0};
        int is_percent = name_len == 13 && memcmp(record_name, "DeformPercent", 13) == 0;
        double percent = 0.0;
        int have_percent = 0;
        for (uint64_t i = 0; i < properties && p < props_end; i++) {
            const unsigned char *text = NULL;
            size_t text_length = 0;
            size_t n = property_size(p, props_end, &text, &text_length);
            if (n == 0) return -1;
            if (i < 3 && text) texts[i] = text, text_lengths[i] = text_length;
            if (is_percent && i == 0 && (p[0] == 'D' || p[0] == 'F')) {
                if (p[0] == 'D') memcpy(&percent, p + 1, 8);
                else {
                    float f;
                    memcpy(&f, p + 1, 4);
                    percent = f;
                }
                have_percent = 1;
            }
            p += n;
        }
        if (is_percent && name && have_percent) add(s, (const char *)name, name_length, percent);
        const unsigned char *child_name = NULL;
        size_t child_name_length = 0;
        if (name_len == 8 && memcmp(record_name, "Deformer", 8) == 0 && texts[1] && texts[2] &&
            text_lengths[2] == 17 && memcmp(texts[2], "BlendShapeChannel", 17) == 0) {
            /* "Name\0\1SubDeformer": the name before the class. */
            child_name = texts[1];
            child_name_length = text_lengths[1];
            for (size_t k = 0; k + 1 < text_lengths[1]; k++)
                if (texts[1][k] == 0 && texts[1][k + 1] == 1) {
                    child_name_length = k;
                    break;
                }
        }
        size_t children = (size_t)(props_end - s->bytes);
        if (children < record_end &&
            walk(s, children, (size_t)record_end, depth + 1, child_name ? child_name : name,
                 child_name ? child_name_length : name_length) != 0)
            return -1;
        at = (size_t)record_end;
    }
    return 0;
}

/* ASCII: `Deformer: ID, "SubDeformer::NAME", "BlendShapeChannel" {` and,
 * inside its braces, `DeformPercent: V`. */
static void scan_ascii(scan *s)
{
    const char *text = (const char *)s->bytes, *end = text + s->size;
    static const char key[] = "\"BlendShapeChannel\"";
    const char *p = text;
    while (p < end) {
        const char *hit = memmem(p, (size_t)(end - p), key, sizeof key - 1);
        if (!hit) return;
        /* Back to the line's start, for the name in the quotes before. */
        const char *line = hit;
        while (line > text && line[-1] != '\n') line--;
        const char *colons = memmem(line, (size_t)(hit - line), "::", 2);
        const char *close = colons ? memchr(colons, '"', (size_t)(hit - colons)) : NULL;
        p = hit + sizeof key - 1;
        if (!colons || !close) continue;
        /* The block: from its '{' to the brace that closes it. */
        const char *brace = memchr(p, '{', (size_t)(end - p));
        if (!brace) return;
        int depth = 0;
        const char *q = brace, *block_end = end;
        for (; q < end; q++) {
            if (*q == '{') depth++;
            else if (*q == '}' && --depth == 0) {
                block_end = q;
                break;
            }
        }
        const char *percent = memmem(brace, (size_t)(block_end - brace), "DeformPercent:", 14);
        if (percent) {
            char number[64];
            const char *v = percent + 14;
            while (v < block_end && (*v == ' ' || *v == '\t')) v++;
            size_t n = 0;
            while (v + n < block_end && n < sizeof number - 1 && (isdigit((unsigned char)v[n]) || strchr("+-.eE", v[n])))
                n++;
            memcpy(number, v, n);
            number[n] = '\0';
            char *stop;
            double value = strtod(number, &stop);
            if (n > 0 && *stop == '\0') add(s, colons + 2, (size_t)(close - colons - 2), value);
        }
        p = block_end;
    }
}

int fbx_deform_percents(const unsigned char *bytes, size_t size, fbx_percent *out, int capacity)
{
    scan s = {.bytes = bytes, .size = size, .out = out, .capacity = capacity};
    if (size >= 27 && memcmp(bytes, binary_magic, sizeof binary_magic - 1) == 0) {
        uint32_t version = (uint32_t)get(bytes + 23, 4);
        s.wide = version >= 7500;
        if (walk(&s, 27, size, 0, NULL, 0) != 0) return -1;
    } else {
        scan_ascii(&s);
    }
    return s.found;
}
