/* test_dae_curves.c - the Collada curve reader (src/import/dae_curves.c):
 * the 2-D Bezier solved for its parameter on curves whose answers are
 * exact by hand, STEP / BEZIER / HERMITE / LINEAR keys on a node's stack,
 * clips, the bake's jumps and bound, and the documents it refuses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dae_curves.h"

/* Hand-computed: the parameter s where the time polynomial meets t, then
 * the value polynomial at s. */
static void test_bezier(void)
{
    /* Control times at the thirds: time is 3s on [0, 3], so s = t / 3;
     * values 0, 3, -3, 0 give 9 s (1 - s)(1 - 2 s): 2/3 at t = 1. */
    CHECK_NEAR(dae_bezier_value(0, 0, 1, 3, 2, -3, 3, 0, 1.0), 2.0 / 3.0, 1e-12);
    CHECK_NEAR(dae_bezier_value(0, 0, 1, 3, 2, -3, 3, 0, 1.5), 0.0, 1e-12);
    /* Both control times at t0: time is s^3. At t = 1/8, s = 1/2; with
     * control values 1, 1 and ends 0, the value is 3/4. At t = 0.216,
     * s = 0.6: 3 (0.4^2)(0.6) + 3 (0.4)(0.6^2) = 0.72. */
    CHECK_NEAR(dae_bezier_value(0, 0, 0, 1, 0, 1, 1, 0, 0.125), 0.75, 1e-12);
    CHECK_NEAR(dae_bezier_value(0, 0, 0, 1, 0, 1, 1, 0, 0.216), 0.72, 1e-12);
    /* Handles on the keys, on [2, 4] from 10 to 20: time is
     * 2 + 2 (3 s^2 - 2 s^3), value 10 + 10 (3 s^2 - 2 s^3): at s = 1/2,
     * t = 3 and the value 15. */
    CHECK_NEAR(dae_bezier_value(2, 10, 2, 10, 4, 20, 4, 20, 3.0), 15.0, 1e-10);
    /* The ends are the keys. */
    CHECK_NEAR(dae_bezier_value(0, 5, 0.7, -3, 0.9, 8, 1, 2, 0.0), 5.0, 1e-12);
    CHECK_NEAR(dae_bezier_value(0, 5, 0.7, -3, 0.9, 8, 1, 2, 1.0), 2.0, 1e-12);
}

#define NS "xmlns=\"http://www.collada.org/2005/11/COLLADASchema\""
#define SRC(id, stride, n, text)                                                                              \
    "<source id=\"" id "\"><float_array id=\"" id "-a\" count=\"" #n "\">" text                             \
    "</float_array><technique_common><accessor source=\"#" id "-a\" count=\"" #n "\" stride=\"" #stride "\"/>" \
    "</technique_common></source>"
#define NAMES(id, text)                                                                          \
    "<source id=\"" id "\"><Name_array id=\"" id "-a\" count=\"2\">" text "</Name_array>"       \
    "<technique_common><accessor source=\"#" id "-a\" count=\"2\" stride=\"1\"/></technique_common></source>"

/* Node N: translate (1 2 3), rotate about z, scale. Its rotate's ANGLE on
 * a BEZIER whose handles sit on the line (so 90 t degrees), translate.X on
 * STEP (5 then 7 at 1 s), scale.Y on a 1-D HERMITE (tangents 3 and 3:
 * controls 1 and -1, so 3 u (1 - u)(1 - 2 u)). Clip "A" holds the angle's
 * animation, clip "B" none. */
static const char doc[] =
    "<?xml version=\"1.0\"?><COLLADA " NS " version=\"1.4.1\"><library_animations>"
    "<animation id=\"rot\">" SRC("ti", 1, 2, "0 1") SRC("vo", 1, 2, "0 90") NAMES("ip", "BEZIER BEZIER")
    SRC("it", 2, 4, "-0.3 -30 0.6666666666666666 60") SRC("ot", 2, 4, "0.3333333333333333 30 1.3 120")
    "<sampler id=\"rs\"><input semantic=\"INPUT\" source=\"#ti\"/><input semantic=\"OUTPUT\" source=\"#vo\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#ip\"/><input semantic=\"IN_TANGENT\" source=\"#it\"/>"
    "<input semantic=\"OUT_TANGENT\" source=\"#ot\"/></sampler><channel source=\"#rs\" target=\"N/r.ANGLE\"/></animation>"
    "<animation id=\"mov\">" SRC("ti2", 1, 2, "0 1") SRC("vo2", 1, 2, "5 7") NAMES("ip2", "STEP STEP")
    "<sampler id=\"ms\"><input semantic=\"INPUT\" source=\"#ti2\"/><input semantic=\"OUTPUT\" source=\"#vo2\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#ip2\"/></sampler><channel source=\"#ms\" target=\"N/t.X\"/>"
    SRC("ti3", 1, 2, "0 1") SRC("vo3", 1, 2, "0 0") NAMES("ip3", "HERMITE HERMITE") SRC("it3", 1, 2, "0 3")
    SRC("ot3", 1, 2, "3 0")
    "<sampler id=\"ss\"><input semantic=\"INPUT\" source=\"#ti3\"/><input semantic=\"OUTPUT\" source=\"#vo3\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#ip3\"/><input semantic=\"IN_TANGENT\" source=\"#it3\"/>"
    "<input semantic=\"OUT_TANGENT\" source=\"#ot3\"/></sampler><channel source=\"#ss\" target=\"N/s.Y\"/>"
    "</animation></library_animations>"
    "<library_animation_clips><animation_clip id=\"a\" name=\"A\"><instance_animation url=\"#rot\"/></animation_clip>"
    "<animation_clip id=\"b\" name=\"B\"/></library_animation_clips>"
    "<library_visual_scenes><visual_scene id=\"s\"><node id=\"N\" sid=\"N\"><translate sid=\"t\">1 2 3</translate>"
    "<rotate sid=\"r\">0 0 1 0</rotate><scale sid=\"s\">1 1 1</scale></node>"
    "<node id=\"L\"><lookat>0 0 0 0 0 -1 0 1 0</lookat></node></visual_scene></library_visual_scenes></COLLADA>";

static void test_document(void)
{
    dae_curves *d = NULL;
    skv_error err;
    CHECK(dae_curves_wanted((const unsigned char *)doc, sizeof doc - 1));
    CHECK(!dae_curves_wanted((const unsigned char *)"<COLLADA>LINEAR</COLLADA>", 25));
    CHECK(dae_curves_read((const unsigned char *)doc, sizeof doc - 1, &d, &err) == SKV_OK && d);
    if (!d) return;
    int n = dae_curves_node(d, "N");
    CHECK(n >= 0);
    CHECK(dae_curves_node(d, "L") < 0); /* <lookat>: not evaluated */
    CHECK(dae_curves_node(d, "missing") < 0);
    CHECK(dae_curves_clip(d, "A") == 0 && dae_curves_clip(d, "b") == 1 && dae_curves_clip(d, "C") == -1);
    CHECK(dae_curves_node_curved(d, n, -1) && dae_curves_node_curved(d, n, 0) && !dae_curves_node_curved(d, n, 1));

    double m[16];
    dae_curves_local(d, n, -1, 0.5, 0, m); /* T(5 2 3) Rz(45) S(1, 3 u (1-u)(1-2u) at u = 1/2: 0, 1) */
    double c = cos(M_PI / 4);
    CHECK_NEAR(m[0], c, 1e-9);
    CHECK_NEAR(m[1], c, 1e-9);
    CHECK_NEAR(m[4], 0.0, 1e-9); /* column 1 scaled by 0 */
    CHECK_NEAR(m[12], 5.0, 0.0);
    CHECK_NEAR(m[13], 2.0, 0.0);
    CHECK_NEAR(m[14], 3.0, 0.0);
    dae_curves_local(d, n, -1, 0.25, 0, m); /* 22.5 degrees; scale.Y 3 (1/4)(3/4)(1/2) = 0.28125 */
    CHECK_NEAR(m[0], cos(M_PI / 8), 1e-9);
    CHECK_NEAR(m[5], 0.28125 * cos(M_PI / 8), 1e-9);
    CHECK_NEAR(m[4], -0.28125 * sin(M_PI / 8), 1e-9);
    /* The STEP at its next key: held from the left, the key's own value. */
    dae_curves_local(d, n, -1, 1.0, 1, m);
    CHECK_NEAR(m[12], 5.0, 0.0);
    dae_curves_local(d, n, -1, 1.0, 0, m);
    CHECK_NEAR(m[12], 7.0, 0.0);
    /* Past the ends, the end keys. */
    dae_curves_local(d, n, -1, 9.0, 0, m);
    CHECK_NEAR(m[0], 0.0, 1e-12);
    CHECK_NEAR(m[1], 1.0, 1e-12);
    /* Clip B has no channel: the rest stack. */
    dae_curves_local(d, n, 1, 0.5, 0, m);
    CHECK_NEAR(m[0], 1.0, 0.0);
    CHECK_NEAR(m[12], 1.0, 0.0);

    /* Baked: keys at 0 and 1, the jump at 1 as two keys at one time, and
     * the bend between; within the bound, or refused past it. */
    dae_baked b;
    CHECK(dae_curves_bake(d, n, -1, 100000, &b, &err) == SKV_OK);
    CHECK(b.count > 8 && b.count < 5000);
    CHECK(b.times[0] == 0.0 && b.times[b.count - 1] == 1.0 && b.times[b.count - 2] == 1.0);
    int ordered = 1;
    for (int i = 1; i < b.count; i++) ordered &= b.times[i] >= b.times[i - 1];
    CHECK(ordered);
    CHECK_NEAR(b.t[b.count - 2][0], 5.0, 1e-6);
    CHECK_NEAR(b.t[b.count - 1][0], 7.0, 1e-6);
    dae_baked_free(&b);
    CHECK(dae_curves_bake(d, n, -1, 4, &b, &err) == SKV_ERR_ARGUMENT && b.count == 0);
    dae_curves_destroy(d);
}

static void test_refused(void)
{
    static const char entity[] = "<?xml version=\"1.0\"?><!DOCTYPE c [<!ENTITY a \"aaaa\">]><COLLADA>&a;</COLLADA>";
    static const char broken[] = "<COLLADA><library_animations></COLLADA>";
    dae_curves *d = (dae_curves *)1;
    skv_error err;
    CHECK(dae_curves_read((const unsigned char *)entity, sizeof entity - 1, &d, &err) == SKV_ERR_IMPORT && !d);
    CHECK(strstr(err.message, "entities") != NULL);
    CHECK(dae_curves_read((const unsigned char *)broken, sizeof broken - 1, &d, &err) == SKV_ERR_IMPORT && !d);
    /* UTF-16 (an entity unseen by a look for ASCII), EBCDIC-like bytes. */
    static const char utf16[] = "\xFF\xFE<\0C\0/\0>\0";
    CHECK(dae_curves_read((const unsigned char *)utf16, sizeof utf16 - 1, &d, &err) == SKV_ERR_IMPORT && !d);
    static const char ebcdic[] = "\x4C\x6F\xA7\x94";
    CHECK(dae_curves_read((const unsigned char *)ebcdic, sizeof ebcdic - 1, &d, &err) == SKV_ERR_IMPORT && !d);
    /* Latin-1 as it says; another declared encoding read as UTF-8. */
    static const char latin1[] = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><COLLADA><node id=\"N\xE9\"/></COLLADA>";
    CHECK(dae_curves_read((const unsigned char *)latin1, sizeof latin1 - 1, &d, &err) == SKV_OK && d);
    if (d) CHECK(dae_curves_node(d, "N\xC3\xA9") >= 0);
    dae_curves_destroy(d);
    static const char utf7[] = "<?xml version=\"1.0\" encoding=\"UTF-7\"?><COLLADA><node id=\"N\"/></COLLADA>";
    CHECK(dae_curves_read((const unsigned char *)utf7, sizeof utf7 - 1, &d, &err) == SKV_OK && d);
    if (d) CHECK(dae_curves_node(d, "N") >= 0);
    dae_curves_destroy(d);
    /* A channel whose target or sampler is not there is left out. */
    static const char stray[] = "<COLLADA><library_animations><animation><channel source=\"#x\" target=\"N/r.ANGLE\"/>"
                                "</animation></library_animations></COLLADA>";
    CHECK(dae_curves_read((const unsigned char *)stray, sizeof stray - 1, &d, &err) == SKV_OK && d);
    if (d) CHECK(dae_curves_node(d, "N") < 0);
    dae_curves_destroy(d);
}

int main(void)
{
    test_bezier();
    test_document();
    test_refused();
    return check_summary();
}
