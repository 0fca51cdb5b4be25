/* dae_curves.c - a Collada file's animation curves, read with libxml2
 * from the bytes in memory, evaluated as the file writes them, and baked
 * into keys for linear playback (dae_curves.h). Runs in the guarded child
 * like the rest of the import: the parse reads nothing but the buffer (no
 * network, no DTD, no entity: a document that declares one is refused). */
#define _GNU_SOURCE /* memmem */
#include "private/dae_curves.h"

#include "anim.h"
#include "keys.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stb_ds.h>

/* Past these the file is not read for its curves (the caller keeps
 * Assimp's linear keys): libxml2 takes an int size, and its tree costs
 * several times the text. */
enum { DAE_MAX_BYTES = 512 << 20, DAE_MAX_DEPTH = 512 };

enum { EL_TRANSLATE, EL_ROTATE, EL_SCALE, EL_MATRIX };
enum { K_LINEAR, K_STEP, K_BEZIER, K_HERMITE };

typedef struct dae_element {
    int kind, n;  /* n: its values (3, 4, 16) */
    char *sid;    /* NULL where it has none */
    double v[16]; /* as the file writes it (a matrix row-major) */
    int animated;
} dae_element;

typedef struct dae_node {
    char *id;
    int first, count; /* its elements */
    int unsupported;  /* <lookat>, <skew>, or an element short of values */
    int *curves;      /* stb_ds array: its channels, document order */
} dae_node;

typedef struct dae_curve {
    int node, element, member; /* member: -1 the whole element, else the value's index */
    int count, stride;         /* keys; floats a key */
    double *times, *values;
    unsigned char *interp; /* per key */
    double *in_tan, *out_tan; /* NULL without both; tan_stride floats a key */
    int tan_stride;
    int curved; /* a key is STEP, BEZIER or HERMITE */
} dae_curve;

typedef struct dae_clip {
    char *name, *id;
    unsigned char *has; /* per curve */
} dae_clip;

typedef struct dae_index {
    char *key;
    int value;
} dae_index;

struct dae_curves {
    dae_node *nodes;       /* stb_ds arrays */
    dae_element *elements;
    dae_curve *curves;
    dae_clip *clips;
    dae_index *node_by_id; /* stb_ds string map */
};

typedef struct dae_source {
    double *floats;      /* float_array */
    unsigned char *names; /* Name_array as K_ codes */
    int count, stride;
} dae_source;

/* What the parse keeps while the document lives. */
typedef struct parse_state {
    dae_curves *out;
    dae_index *source_by_id, *sampler_by_id, *anim_by_id;
    dae_source *sources;
    xmlNode **samplers, **anims;
    xmlNode **channels;       /* per curve: its <channel> */
    xmlNode **channel_nodes;  /* every <channel>, document order */
    xmlNode **clip_nodes;
    int too_deep;
} parse_state;

static int named(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static char *attr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp((xmlNode *)n, (const xmlChar *)name); /* xmlFree */
}

static char *dup_attr(const xmlNode *n, const char *name)
{
    char *a = attr(n, name);
    char *copy = a ? strdup(a) : NULL;
    xmlFree(a);
    return copy;
}

/* The numbers of an element's text, at most `max` (all of them for
 * max < 0): a malloc'd array and its count; NULL with count -1 for text
 * that is not numbers, non-finite ones included. */
static double *numbers(const xmlNode *n, int max, int *count)
{
    *count = -1;
    xmlChar *text = xmlNodeGetContent(n);
    if (!text) return NULL;
    size_t cap = 16, used = 0;
    double *v = malloc(cap * sizeof *v);
    const char *p = (const char *)text;
    int ok = v != NULL;
    while (ok && (max < 0 || (int)used < max)) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        char *end;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || used >= INT32_MAX) {
            ok = 0;
            break;
        }
        p = end;
        if (used == cap) {
            double *grown = realloc(v, 2 * cap * sizeof *v);
            if (!grown) {
                ok = 0;
                break;
            }
            v = grown, cap *= 2;
        }
        v[used++] = x;
    }
    xmlFree(text);
    if (!ok) {
        free(v);
        return NULL;
    }
    *count = (int)used;
    return v;
}

static unsigned char *interp_names(const xmlNode *n, int *count)
{
    *count = -1;
    xmlChar *text = xmlNodeGetContent(n);
    if (!text) return NULL;
    size_t len = strlen((const char *)text);
    unsigned char *codes = malloc(len / 2 + 1); /* a name and its separator: 2 bytes at least */
    int used = 0;
    for (const char *p = (const char *)text; codes && *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        size_t k = strcspn(p, " \t\n\r");
        codes[used++] = k == 4 && memcmp(p, "STEP", 4) == 0      ? K_STEP
                        : k == 6 && memcmp(p, "BEZIER", 6) == 0  ? K_BEZIER
                        : k == 7 && memcmp(p, "HERMITE", 7) == 0 ? K_HERMITE
                                                                 : K_LINEAR;
        p += k;
    }
    xmlFree(text);
    if (codes) *count = used;
    return codes;
}

static void index_put(dae_index **map, const char *key, int value)
{
    if (key && shgeti(*map, key) < 0) shput(*map, key, value);
}

static int index_get(dae_index **map, const char *key)
{
    if (!key) return -1;
    ptrdiff_t at = shgeti(*map, key);
    return at < 0 ? -1 : (*map)[at].value;
}

/* A <source> of an animation: its array and its accessor's stride. */
static void read_source(parse_state *ps, const xmlNode *src)
{
    dae_source s = {0};
    s.stride = 1;
    for (const xmlNode *c = src->children; c; c = c->next) {
        if (named(c, "float_array") && !s.floats && !s.names) s.floats = numbers(c, -1, &s.count);
        else if (named(c, "Name_array") && !s.floats && !s.names) s.names = interp_names(c, &s.count);
        else if (named(c, "technique_common"))
            for (const xmlNode *a = c->children; a; a = a->next)
                if (named(a, "accessor")) {
                    char *st = attr(a, "stride");
                    long v = st ? strtol(st, NULL, 10) : 1;
                    xmlFree(st);
                    s.stride = v >= 1 && v <= 64 ? (int)v : 0;
                }
    }
    char *id = attr(src, "id");
    if ((s.floats || s.names) && s.count >= 0 && s.stride > 0 && id && shgeti(ps->source_by_id, id) < 0) {
        arrput(ps->sources, s);
        index_put(&ps->source_by_id, id, (int)arrlen(ps->sources) - 1);
    } else {
        free(s.floats), free(s.names);
    }
    xmlFree(id);
}

/* The transform elements a node's local is made of. */
static int element_kind(const xmlNode *c, int *n)
{
    if (named(c, "translate")) return *n = 3, EL_TRANSLATE;
    if (named(c, "rotate")) return *n = 4, EL_ROTATE;
    if (named(c, "scale")) return *n = 3, EL_SCALE;
    if (named(c, "matrix")) return *n = 16, EL_MATRIX;
    return -1;
}

static skv_result read_node(parse_state *ps, const xmlNode *node)
{
    dae_curves *d = ps->out;
    dae_node dn = {.id = dup_attr(node, "id"), .first = (int)arrlen(d->elements)};
    for (const xmlNode *c = node->children; c; c = c->next) {
        int n, kind = element_kind(c, &n);
        if (kind < 0) {
            if (named(c, "lookat") || named(c, "skew")) dn.unsupported = 1;
            continue;
        }
        dae_element e = {.kind = kind, .n = n, .sid = dup_attr(c, "sid")};
        int got;
        double *v = numbers(c, n, &got);
        if (got == n) memcpy(e.v, v, (size_t)n * sizeof *v);
        else dn.unsupported = 1;
        free(v);
        arrput(d->elements, e);
        dn.count++;
    }
    arrput(d->nodes, dn);
    if (dn.id) index_put(&d->node_by_id, dn.id, (int)arrlen(d->nodes) - 1);
    return SKV_OK;
}

/* The document's elements that matter, in document order (iteratively:
 * the depth a document may reach is libxml2's to bound, not the stack's). */
static void collect(parse_state *ps, xmlNode *root)
{
    int in_animations = 0, depth = 0;
    xmlNode *n = root;
    while (n) {
        if (n->type == XML_ELEMENT_NODE) {
            if (named(n, "node")) read_node(ps, n);
            else if (named(n, "animation")) {
                char *id = attr(n, "id");
                arrput(ps->anims, n);
                index_put(&ps->anim_by_id, id, (int)arrlen(ps->anims) - 1);
                xmlFree(id);
            } else if (named(n, "source") && in_animations) read_source(ps, n);
            else if (named(n, "sampler")) {
                char *id = attr(n, "id");
                arrput(ps->samplers, n);
                index_put(&ps->sampler_by_id, id, (int)arrlen(ps->samplers) - 1);
                xmlFree(id);
            } else if (named(n, "channel")) arrput(ps->channel_nodes, n);
            else if (named(n, "animation_clip")) arrput(ps->clip_nodes, n);
        }
        /* Down (not into a source's arrays: read above), else on, else up. */
        int descend = n->type == XML_ELEMENT_NODE && n->children && !named(n, "source") &&
                      !named(n, "float_array") && !named(n, "int_array") && !named(n, "p") && depth < DAE_MAX_DEPTH;
        if (n->type == XML_ELEMENT_NODE && depth >= DAE_MAX_DEPTH && n->children) ps->too_deep = 1;
        if (descend) {
            if (named(n, "library_animations") || named(n, "animation")) in_animations++;
            n = n->children;
            depth++;
            continue;
        }
        while (n && !n->next) {
            n = n->parent;
            depth--;
            if (!n || n == root->parent || depth < 0) return;
            if (named(n, "library_animations") || named(n, "animation")) in_animations--;
        }
        if (n) n = n->next;
    }
}

/* "#id" -> "id". */
static const char *fragment(const char *url)
{
    return url && url[0] == '#' ? url + 1 : NULL;
}

/* A channel's target: node id, then "/sid", then a member. */
static int parse_target(const char *target, char *node, size_t node_size, char *sid, size_t sid_size, int *member,
                        int *index2)
{
    const char *slash = strchr(target, '/');
    if (!slash || (size_t)(slash - target) >= node_size) return 0;
    memcpy(node, target, (size_t)(slash - target));
    node[slash - target] = '\0';
    const char *rest = slash + 1;
    size_t sid_len = strcspn(rest, "(.");
    if (sid_len >= sid_size || sid_len == 0) return 0;
    memcpy(sid, rest, sid_len);
    sid[sid_len] = '\0';
    const char *m = rest + sid_len;
    *member = -1, *index2 = -1;
    if (!*m) return 1;
    if (*m == '.') {
        m++;
        if (strcmp(m, "X") == 0) *member = 0;
        else if (strcmp(m, "Y") == 0) *member = 1;
        else if (strcmp(m, "Z") == 0) *member = 2;
        else if (strcmp(m, "ANGLE") == 0) *member = 3;
        else return 0;
        return 1;
    }
    /* (i) or (i)(j) */
    int idx[2], k = 0;
    while (*m == '(' && k < 2) {
        char *end;
        long v = strtol(m + 1, &end, 10);
        if (end == m + 1 || *end != ')' || v < 0 || v > 15) return 0;
        idx[k++] = (int)v;
        m = end + 1;
    }
    if (*m || k == 0) return 0;
    if (k == 1) *member = idx[0];
    else if (idx[0] < 4 && idx[1] < 4) *member = idx[1] * 4 + idx[0]; /* (col)(row) of a row-major matrix */
    else return 0;
    return 1;
}

static const dae_source *sampler_input(parse_state *ps, const xmlNode *sampler, const char *semantic)
{
    for (const xmlNode *c = sampler->children; c; c = c->next) {
        if (!named(c, "input")) continue;
        char *sem = attr(c, "semantic"), *src = attr(c, "source");
        int hit = sem && strcmp(sem, semantic) == 0;
        int at = hit ? index_get(&ps->source_by_id, fragment(src)) : -1;
        xmlFree(sem), xmlFree(src);
        if (hit) return at >= 0 ? &ps->sources[at] : NULL;
    }
    return NULL;
}

/* A <channel> as a curve, where it holds together. */
static skv_result read_channel(parse_state *ps, xmlNode *ch)
{
    dae_curves *d = ps->out;
    char *target = attr(ch, "target"), *source = attr(ch, "source");
    char node_id[512], sid[256];
    int member, unused;
    int sampler = index_get(&ps->sampler_by_id, fragment(source));
    int ok = target && sampler >= 0 && parse_target(target, node_id, sizeof node_id, sid, sizeof sid, &member, &unused);
    xmlFree(target), xmlFree(source);
    int node = ok ? index_get(&d->node_by_id, node_id) : -1;
    if (node < 0 || d->nodes[node].unsupported) return SKV_OK;
    dae_node *dn = &d->nodes[node];
    int element = -1;
    for (int e = dn->first; e < dn->first + dn->count && element < 0; e++)
        if (d->elements[e].sid && strcmp(d->elements[e].sid, sid) == 0) element = e;
    if (element < 0) return SKV_OK;
    const xmlNode *smp = ps->samplers[sampler];
    const dae_source *in = sampler_input(ps, smp, "INPUT"), *out = sampler_input(ps, smp, "OUTPUT");
    const dae_source *interp = sampler_input(ps, smp, "INTERPOLATION");
    const dae_source *in_tan = sampler_input(ps, smp, "IN_TANGENT"), *out_tan = sampler_input(ps, smp, "OUT_TANGENT");
    if (!in || !out || !in->floats || !out->floats || in->count < 1) return SKV_OK;
    int count = in->count, stride = out->stride, width = d->elements[element].n;
    if ((size_t)out->count < (size_t)count * (size_t)stride) return SKV_OK;
    if (member < 0 ? stride != width : member >= width) return SKV_OK; /* nothing the element takes */
    for (int k = 1; k < count; k++)
        if (!(in->floats[k] >= in->floats[k - 1])) return SKV_OK;
    dae_curve c = {.node = node, .element = element, .member = member, .count = count, .stride = stride};
    c.times = malloc((size_t)count * sizeof *c.times);
    c.values = malloc((size_t)count * (size_t)stride * sizeof *c.values);
    c.interp = calloc((size_t)count, 1);
    int tan = in_tan && out_tan && in_tan->floats && out_tan->floats && in_tan->stride == out_tan->stride &&
              (in_tan->stride == stride || in_tan->stride == 2 * stride) &&
              (size_t)in_tan->count >= (size_t)count * (size_t)in_tan->stride &&
              (size_t)out_tan->count >= (size_t)count * (size_t)out_tan->stride;
    if (tan) {
        c.tan_stride = in_tan->stride;
        c.in_tan = malloc((size_t)count * (size_t)c.tan_stride * sizeof *c.in_tan);
        c.out_tan = malloc((size_t)count * (size_t)c.tan_stride * sizeof *c.out_tan);
    }
    if (!c.times || !c.values || !c.interp || (tan && (!c.in_tan || !c.out_tan))) {
        free(c.times), free(c.values), free(c.interp), free(c.in_tan), free(c.out_tan);
        return SKV_ERR_MEMORY;
    }
    memcpy(c.times, in->floats, (size_t)count * sizeof *c.times);
    memcpy(c.values, out->floats, (size_t)count * (size_t)stride * sizeof *c.values);
    if (tan) {
        memcpy(c.in_tan, in_tan->floats, (size_t)count * (size_t)c.tan_stride * sizeof *c.in_tan);
        memcpy(c.out_tan, out_tan->floats, (size_t)count * (size_t)c.tan_stride * sizeof *c.out_tan);
    }
    for (int k = 0; interp && interp->names && k < count && k < interp->count; k++) {
        int code = interp->names[k];
        if ((code == K_BEZIER || code == K_HERMITE) && !tan) code = K_LINEAR; /* no tangents: a line */
        c.interp[k] = (unsigned char)code;
        /* The last key starts no segment. */
        if (code != K_LINEAR && k + 1 < count) c.curved = 1;
    }
    arrput(d->curves, c);
    arrput(ps->channels, ch);
    arrput(dn->curves, (int)arrlen(d->curves) - 1);
    d->elements[element].animated = 1;
    return SKV_OK;
}

/* Is `n` inside the animation `anim`? */
static int inside(const xmlNode *n, const xmlNode *anim)
{
    for (; n; n = n->parent)
        if (n == anim) return 1;
    return 0;
}

static skv_result read_clip(parse_state *ps, const xmlNode *clip)
{
    dae_curves *d = ps->out;
    size_t curves = (size_t)arrlen(d->curves);
    dae_clip dc = {.name = dup_attr(clip, "name"), .id = dup_attr(clip, "id"), .has = calloc(curves ? curves : 1, 1)};
    if (!dc.has) {
        free(dc.name), free(dc.id);
        return SKV_ERR_MEMORY;
    }
    for (const xmlNode *c = clip->children; c; c = c->next) {
        if (!named(c, "instance_animation")) continue;
        char *url = attr(c, "url");
        int a = index_get(&ps->anim_by_id, fragment(url));
        xmlFree(url);
        for (size_t k = 0; a >= 0 && k < curves; k++)
            if (inside(ps->channels[k], ps->anims[a])) dc.has[k] = 1;
    }
    arrput(d->clips, dc);
    return SKV_OK;
}

static void parse_state_free(parse_state *ps)
{
    for (ptrdiff_t i = 0; i < arrlen(ps->sources); i++) free(ps->sources[i].floats), free(ps->sources[i].names);
    arrfree(ps->sources);
    shfree(ps->source_by_id), shfree(ps->sampler_by_id), shfree(ps->anim_by_id);
    arrfree(ps->samplers), arrfree(ps->anims), arrfree(ps->channels), arrfree(ps->channel_nodes);
    arrfree(ps->clip_nodes);
}

int dae_curves_wanted(const unsigned char *bytes, size_t size)
{
    return bytes && (memmem(bytes, size, "BEZIER", 6) || memmem(bytes, size, "HERMITE", 7) ||
                     memmem(bytes, size, "STEP", 4));
}

skv_result dae_curves_read(const unsigned char *bytes, size_t size, dae_curves **out, skv_error *err)
{
    *out = NULL;
    if (size > DAE_MAX_BYTES) return skv_fail(err, SKV_ERR_IMPORT, "Collada: over %d MiB: curves not read", DAE_MAX_BYTES >> 20);
    /* Entities are what libxml2 would expand or fetch: Collada writes
     * none. The look for a declaration holds for text in an encoding
     * that spells ASCII as ASCII: the document is read as UTF-8 or, where
     * it says so, Latin-1 (libxml2's own decoders, no iconv), whatever
     * else it declares, and one with a NUL byte (UTF-16, UTF-32) or that
     * does not start with '<' (EBCDIC) is not read. */
    size_t start = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (start < size && (bytes[start] == ' ' || bytes[start] == '\t' || bytes[start] == '\n' || bytes[start] == '\r'))
        start++;
    if (start >= size || bytes[start] != '<' || memchr(bytes, 0, size))
        return skv_fail(err, SKV_ERR_IMPORT, "Collada: not UTF-8 or Latin-1 text: curves not read");
    if (memmem(bytes, size, "<!ENTITY", 8))
        return skv_fail(err, SKV_ERR_IMPORT, "Collada: the document declares entities: curves not read");
    const char *encoding = "UTF-8";
    size_t head = size < 256 ? size : 256;
    const unsigned char *declared = memmem(bytes, head, "encoding=", 9);
    if (declared && (size_t)(declared - bytes) + 20 <= size &&
        (strncasecmp((const char *)declared + 10, "ISO-8859-1", 10) == 0 ||
         strncasecmp((const char *)declared + 10, "latin1", 6) == 0))
        encoding = "ISO-8859-1";
    /* Big meshes' arrays exceed libxml2's default text limit (HUGE); no
     * network, no DTD, no entity substitution, no messages on stderr. */
    xmlDoc *doc = xmlReadMemory((const char *)bytes, (int)size, "model.dae", encoding,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE |
                                    XML_PARSE_NOCDATA | XML_PARSE_IGNORE_ENC);
    if (!doc) return skv_fail(err, SKV_ERR_IMPORT, "Collada: not well-formed XML: curves not read");
    dae_curves *d = calloc(1, sizeof *d);
    parse_state ps = {.out = d};
    skv_result r = d ? SKV_OK : SKV_ERR_MEMORY;
    if (d) {
        sh_new_strdup(d->node_by_id);
        sh_new_strdup(ps.source_by_id), sh_new_strdup(ps.sampler_by_id), sh_new_strdup(ps.anim_by_id);
        collect(&ps, xmlDocGetRootElement(doc));
        for (ptrdiff_t i = 0; r == SKV_OK && i < arrlen(ps.channel_nodes); i++) r = read_channel(&ps, ps.channel_nodes[i]);
        for (ptrdiff_t i = 0; r == SKV_OK && i < arrlen(ps.clip_nodes); i++) r = read_clip(&ps, ps.clip_nodes[i]);
        if (r == SKV_OK && ps.too_deep) r = skv_fail(err, SKV_ERR_IMPORT, "Collada: nested deeper than %d: curves not read", DAE_MAX_DEPTH);
    }
    parse_state_free(&ps);
    xmlFreeDoc(doc);
    if (r != SKV_OK) {
        dae_curves_destroy(d);
        return r == SKV_ERR_MEMORY ? skv_fail(err, r, "out of memory") : r;
    }
    *out = d;
    return SKV_OK;
}

void dae_curves_destroy(dae_curves *d)
{
    if (!d) return;
    for (ptrdiff_t i = 0; i < arrlen(d->nodes); i++) free(d->nodes[i].id), arrfree(d->nodes[i].curves);
    for (ptrdiff_t i = 0; i < arrlen(d->elements); i++) free(d->elements[i].sid);
    for (ptrdiff_t i = 0; i < arrlen(d->curves); i++) {
        dae_curve *c = &d->curves[i];
        free(c->times), free(c->values), free(c->interp), free(c->in_tan), free(c->out_tan);
    }
    for (ptrdiff_t i = 0; i < arrlen(d->clips); i++) free(d->clips[i].name), free(d->clips[i].id), free(d->clips[i].has);
    arrfree(d->nodes), arrfree(d->elements), arrfree(d->curves), arrfree(d->clips);
    shfree(d->node_by_id);
    free(d);
}

int dae_curves_clip(const dae_curves *d, const char *name)
{
    for (ptrdiff_t i = 0; name && i < arrlen(d->clips); i++)
        if (d->clips[i].name && strcmp(d->clips[i].name, name) == 0) return (int)i;
    for (ptrdiff_t i = 0; name && i < arrlen(d->clips); i++)
        if (d->clips[i].id && strcmp(d->clips[i].id, name) == 0) return (int)i;
    return -1;
}

int dae_curves_node(const dae_curves *d, const char *id)
{
    dae_index *map = d->node_by_id;
    int node = index_get(&map, id);
    return node >= 0 && !d->nodes[node].unsupported ? node : -1;
}

static int in_clip(const dae_curves *d, int clip, int curve)
{
    return clip < 0 || clip >= arrlen(d->clips) || d->clips[clip].has[curve];
}

int dae_curves_node_curved(const dae_curves *d, int node, int clip)
{
    if (node < 0 || node >= arrlen(d->nodes)) return 0;
    const dae_node *dn = &d->nodes[node];
    for (ptrdiff_t i = 0; i < arrlen(dn->curves); i++)
        if (in_clip(d, clip, dn->curves[i]) && d->curves[dn->curves[i]].curved) return 1;
    return 0;
}

/* --- evaluation ------------------------------------------------------------ */

double dae_bezier_value(double t0, double v0, double c0t, double c0v, double c1t, double c1v, double t1, double v1,
                        double t)
{
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) {
        double s = 0.5 * (lo + hi), r = 1.0 - s;
        double bt = r * r * r * t0 + 3.0 * r * r * s * c0t + 3.0 * r * s * s * c1t + s * s * s * t1;
        if (bt < t) lo = s;
        else hi = s;
    }
    double s = 0.5 * (lo + hi), r = 1.0 - s;
    return r * r * r * v0 + 3.0 * r * r * s * c0v + 3.0 * r * s * s * c1v + s * s * s * v1;
}

/* Curve `c`'s value (c->stride numbers) at t; `left` as dae_curves_local. */
static void curve_at(const dae_curve *c, double t, int left, double *out)
{
    int n = c->count, w = c->stride;
    const double *ti = c->times;
    int k;
    if (n == 1 || t <= ti[0]) k = 0;
    else if (left ? t > ti[n - 1] : t >= ti[n - 1]) k = n - 1;
    else {
        /* The segment [k, k + 1] holding t: ti[k] <= t < ti[k + 1]
         * (left: ti[k] < t <= ti[k + 1]). */
        int lo = 0, hi = n - 1;
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (left ? ti[mid] < t : ti[mid] <= t) lo = mid;
            else hi = mid;
        }
        double t0 = ti[lo], t1 = ti[lo + 1];
        const double *v0 = c->values + (size_t)lo * w, *v1 = v0 + w;
        double u = (t - t0) / (t1 - t0);
        int mode = c->interp[lo];
        for (int a = 0; a < w; a++) {
            if (mode == K_STEP) {
                out[a] = v0[a];
            } else if (mode == K_BEZIER || mode == K_HERMITE) {
                const double *ot = c->out_tan + (size_t)lo * c->tan_stride, *it = c->in_tan + (size_t)(lo + 1) * c->tan_stride;
                double c0t, c0v, c1t, c1v;
                if (c->tan_stride == 2 * w) { /* 2-D: (time, value) per component */
                    c0t = ot[2 * a], c0v = ot[2 * a + 1], c1t = it[2 * a], c1v = it[2 * a + 1];
                    if (mode == K_HERMITE) /* tangent vectors: C0 = P0 + T0 / 3, C1 = P1 - T1 / 3 */
                        c0t = t0 + c0t / 3.0, c0v = v0[a] + c0v / 3.0, c1t = t1 - c1t / 3.0, c1v = v1[a] - c1v / 3.0;
                    out[a] = dae_bezier_value(t0, v0[a], c0t, c0v, c1t, c1v, t1, v1[a], t);
                } else { /* 1-D: control values at the thirds in time */
                    c0v = ot[a], c1v = it[a];
                    if (mode == K_HERMITE) c0v = v0[a] + c0v / 3.0, c1v = v1[a] - c1v / 3.0;
                    double r = 1.0 - u;
                    out[a] = r * r * r * v0[a] + 3.0 * r * r * u * c0v + 3.0 * r * u * u * c1v + u * u * u * v1[a];
                }
            } else {
                out[a] = v0[a] + u * (v1[a] - v0[a]);
            }
        }
        return;
    }
    memcpy(out, c->values + (size_t)k * w, (size_t)w * sizeof *out);
}

/* out = a * b, 4x4 row-major. */
static void mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
            r[i * 4 + j] = s;
        }
    memcpy(out, r, sizeof r);
}

/* An element's matrix (row-major) from its values. */
static void element_matrix(int kind, const double *v, int animated, double x[16])
{
    static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(x, identity, sizeof identity);
    switch (kind) {
    case EL_TRANSLATE:
        x[3] = v[0], x[7] = v[1], x[11] = v[2];
        break;
    case EL_SCALE:
        x[0] = v[0], x[5] = v[1], x[10] = v[2];
        break;
    case EL_ROTATE: {
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(len > 0.0) || !isfinite(len)) break; /* no axis: no turn */
        double ax = v[0] / len, ay = v[1] / len, az = v[2] / len, a = v[3] * (M_PI / 180.0);
        double c = cos(a), s = sin(a), C = 1.0 - c;
        double m[16] = {ax * ax * C + c,      ax * ay * C - az * s, ax * az * C + ay * s, 0,
                        ay * ax * C + az * s, ay * ay * C + c,      ay * az * C - ax * s, 0,
                        az * ax * C - ay * s, az * ay * C + ax * s, az * az * C + c,      0,
                        0,                    0,                    0,                    1};
        memcpy(x, m, sizeof m);
        break;
    }
    default:
        memcpy(x, v, 16 * sizeof *x);
        if (animated) x[12] = x[13] = x[14] = 0.0, x[15] = 1.0; /* kept affine */
        break;
    }
}

void dae_curves_local(const dae_curves *d, int node, int clip, double seconds, int left, double m[16])
{
    double rows[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const dae_node *dn = &d->nodes[node];
    for (int e = dn->first; e < dn->first + dn->count; e++) {
        const dae_element *el = &d->elements[e];
        double v[16], x[16], val[64];
        memcpy(v, el->v, sizeof v);
        for (ptrdiff_t i = 0; i < arrlen(dn->curves); i++) {
            const dae_curve *c = &d->curves[dn->curves[i]];
            if (c->element != e || !in_clip(d, clip, dn->curves[i])) continue;
            curve_at(c, seconds, left, val);
            if (c->member < 0) memcpy(v, val, (size_t)el->n * sizeof *v);
            else v[c->member] = val[0];
        }
        element_matrix(el->kind, v, el->animated, x);
        mul(rows, x, rows);
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) m[c * 4 + r] = rows[r * 4 + c];
}

/* --- baking ---------------------------------------------------------------- */

/* Error bound, relative, and how far a segment may be halved. */
#define BAKE_TOL 1e-4
enum { BAKE_MIN_PIECES = 8, BAKE_MAX_DEPTH = 8 };

typedef struct bake_key {
    double time;
    float t[3], q[4], s[3];
} bake_key;

typedef struct bake_state {
    const dae_curves *d;
    int node, clip, max_keys;
    double length; /* the node's largest translation: T's tolerance scale */
    bake_key *keys; /* stb_ds */
    int over, bad;
} bake_state;

static void trs_at(const bake_state *b, double seconds, int left, bake_key *k)
{
    double m[16];
    dae_curves_local(b->d, b->node, b->clip, seconds, left, m);
    mat4 f;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) f[c][r] = (float)m[c * 4 + r];
    k->time = seconds;
    anim_decompose(f, k->t, k->q, k->s);
}

static int key_sane(const bake_key *k)
{
    for (int a = 0; a < 3; a++)
        if (!(fabsf(k->t[a]) <= 1e15f) || !(fabsf(k->s[a]) <= 1e15f)) return 0;
    for (int a = 0; a < 4; a++)
        if (!isfinite(k->q[a])) return 0;
    return 1;
}

static void emit(bake_state *b, const bake_key *k)
{
    if (arrlen(b->keys) >= b->max_keys) {
        b->over = 1;
        return;
    }
    if (!key_sane(k)) b->bad = 1;
    arrput(b->keys, *k);
}

/* How far the playback between keys a and b (T lerped, R slerped, S
 * lerped) is from the curves at their middle m, relative. */
static double midpoint_error(const bake_state *b, const bake_key *a, const bake_key *z, const bake_key *m)
{
    float t[3], q[4], s[3];
    for (int i = 0; i < 3; i++) t[i] = 0.5f * (a->t[i] + z->t[i]), s[i] = 0.5f * (a->s[i] + z->s[i]);
    keys_slerp(a->q, z->q, 0.5f, q);
    mat4 played, truth;
    keys_local(t, q, s, played);
    keys_local(m->t, m->q, m->s, truth);
    double scale = 1.0, err = 0.0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) scale = fmax(scale, fabs(truth[c][r]));
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) err = fmax(err, fabs(played[c][r] - truth[c][r]) / scale);
    double length = b->length > 1e-30 ? b->length : 1e-30;
    for (int r = 0; r < 3; r++) err = fmax(err, fabs(played[3][r] - truth[3][r]) / length);
    return err;
}

/* Keys on (a, z]: z's, and between where the middle is off. */
static void refine(bake_state *b, const bake_key *a, const bake_key *z, int depth)
{
    if (b->over) return;
    if (depth < BAKE_MAX_DEPTH) {
        bake_key m;
        trs_at(b, 0.5 * (a->time + z->time), 0, &m);
        if (midpoint_error(b, a, z, &m) > BAKE_TOL && m.time > a->time && m.time < z->time) {
            refine(b, a, &m, depth + 1);
            refine(b, &m, z, depth + 1);
            return;
        }
    }
    emit(b, z);
}

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Does a curve of the node bend or jump on (t0, t1)? */
static int segment_curved(const dae_curves *d, int node, int clip, double t0, double t1)
{
    const dae_node *dn = &d->nodes[node];
    double mid = 0.5 * (t0 + t1);
    for (ptrdiff_t i = 0; i < arrlen(dn->curves); i++) {
        const dae_curve *c = &d->curves[dn->curves[i]];
        if (!c->curved || !in_clip(d, clip, dn->curves[i]) || mid <= c->times[0] || mid >= c->times[c->count - 1])
            continue;
        int lo = 0, hi = c->count - 1;
        while (hi - lo > 1) {
            int m = lo + (hi - lo) / 2;
            if (c->times[m] <= mid) lo = m;
            else hi = m;
        }
        if (c->interp[lo] != K_LINEAR) return 1;
    }
    return 0;
}

skv_result dae_curves_bake(const dae_curves *d, int node, int clip, int max_keys, dae_baked *out, skv_error *err)
{
    *out = (dae_baked){0};
    const dae_node *dn = &d->nodes[node];
    double *times = NULL;
    for (ptrdiff_t i = 0; i < arrlen(dn->curves); i++) {
        const dae_curve *c = &d->curves[dn->curves[i]];
        if (!in_clip(d, clip, dn->curves[i])) continue;
        for (int k = 0; k < c->count; k++) arrput(times, c->times[k]);
    }
    ptrdiff_t n = arrlen(times);
    if (n == 0) {
        arrfree(times);
        return skv_fail(err, SKV_ERR_ARGUMENT, "no curve");
    }
    qsort(times, (size_t)n, sizeof *times, compare_doubles);
    ptrdiff_t u = 0;
    for (ptrdiff_t i = 0; i < n; i++)
        if (u == 0 || times[i] != times[u - 1]) times[u++] = times[i];

    bake_state b = {.d = d, .node = node, .clip = clip, .max_keys = max_keys};
    for (ptrdiff_t i = 0; i < u; i++) {
        bake_key k;
        trs_at(&b, times[i], 0, &k);
        for (int a = 0; a < 3; a++) b.length = fmax(b.length, fabs(k.t[a]));
        if (i + 1 < u) {
            trs_at(&b, 0.5 * (times[i] + times[i + 1]), 0, &k);
            for (int a = 0; a < 3; a++) b.length = fmax(b.length, fabs(k.t[a]));
        }
    }
    bake_key first;
    trs_at(&b, times[0], 0, &first);
    emit(&b, &first);
    for (ptrdiff_t i = 0; i + 1 < u && !b.over; i++) {
        double t0 = times[i], t1 = times[i + 1];
        int pieces = segment_curved(d, node, clip, t0, t1) ? BAKE_MIN_PIECES : 1;
        bake_key a;
        trs_at(&b, t0, 0, &a);
        for (int p = 1; p <= pieces && !b.over; p++) {
            bake_key z;
            if (p == pieces) trs_at(&b, t1, 1, &z); /* the segment's end, from within it */
            else trs_at(&b, t0 + (t1 - t0) * p / pieces, 0, &z);
            refine(&b, &a, &z, 0);
            a = z;
        }
        /* A jump at t1 (a STEP ends): the key's own value at the same time. */
        bake_key after;
        trs_at(&b, t1, 0, &after);
        if (memcmp(after.t, a.t, sizeof a.t) || memcmp(after.q, a.q, sizeof a.q) || memcmp(after.s, a.s, sizeof a.s))
            emit(&b, &after);
    }
    arrfree(times);
    if (b.over || b.bad) {
        arrfree(b.keys);
        return b.over ? skv_fail(err, SKV_ERR_ARGUMENT, "more than %d keys", max_keys)
                      : skv_fail(err, SKV_ERR_ARGUMENT, "values beyond 1e15");
    }
    int count = (int)arrlen(b.keys);
    out->times = malloc((size_t)count * sizeof *out->times);
    out->t = malloc((size_t)count * sizeof *out->t);
    out->q = malloc((size_t)count * sizeof *out->q);
    out->s = malloc((size_t)count * sizeof *out->s);
    if (!out->times || !out->t || !out->q || !out->s) {
        arrfree(b.keys);
        dae_baked_free(out);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    out->count = count;
    for (int i = 0; i < count; i++) {
        out->times[i] = b.keys[i].time;
        memcpy(out->t[i], b.keys[i].t, sizeof out->t[i]);
        memcpy(out->q[i], b.keys[i].q, sizeof out->q[i]);
        memcpy(out->s[i], b.keys[i].s, sizeof out->s[i]);
    }
    arrfree(b.keys);
    return SKV_OK;
}

void dae_baked_free(dae_baked *b)
{
    free(b->times), free(b->t), free(b->q), free(b->s);
    *b = (dae_baked){0};
}
