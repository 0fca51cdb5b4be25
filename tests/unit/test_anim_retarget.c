/* test_anim_retarget.c - matching a skeleton's nodes to another's
 * (retarget.c, retarget_match): the bone map first, names, namespaces,
 * the humanoid naming schemes, and a name two schemes place differently.
 * The transfer itself is checked end to end (e2e_retarget). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "retarget.h"

/* A skeleton of `count` names, a chain (each node the child of the one
 * before); the rest pose does not matter to matching. */
static skv_skeleton chain(const char *const *names, int count)
{
    skv_skeleton sk = {.node_count = count};
    sk.node_names = calloc((size_t)count, sizeof *sk.node_names);
    sk.parents = malloc((size_t)count * sizeof *sk.parents);
    sk.rest_local = malloc((size_t)count * sizeof *sk.rest_local);
    for (int i = 0; i < count; i++) {
        sk.node_names[i] = strdup(names[i]);
        sk.parents[i] = i - 1;
        glm_mat4_identity(sk.rest_local[i]);
    }
    return sk;
}

static void chain_free(skv_skeleton *sk)
{
    for (int i = 0; i < sk->node_count; i++) free(sk->node_names[i]);
    free(sk->node_names), free(sk->parents), free(sk->rest_local);
}

/* The source node's name each target node follows, "-" for none, joined
 * by spaces. */
static void matches(const skv_skeleton *t, const skv_skeleton *s, const skv_bone_map *map, char *out, size_t size,
                    skv_result *r)
{
    int source_of[64];
    skv_error err = {{0}};
    *r = retarget_match(t, s, map, source_of, &err);
    out[0] = '\0';
    for (int i = 0; *r == SKV_OK && i < t->node_count; i++) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", i ? " " : "", source_of[i] >= 0 ? s->node_names[source_of[i]] : "-");
    }
}

static void test_names_and_map(void)
{
    const char *tn[] = {"Root", "mixamorig:Hips", "SPINE", "Tail", "Other"};
    const char *sn[] = {"Root", "Hips", "Spine", "Tail", "Nose"};
    skv_skeleton t = chain(tn, 5), s = chain(sn, 5);
    char got[512];
    skv_result r;
    matches(&t, &s, NULL, got, sizeof got, &r);
    CHECK(r == SKV_OK);
    CHECK(strcmp(got, "Root Hips Spine Tail -") == 0);
    if (strcmp(got, "Root Hips Spine Tail -") != 0) fprintf(stderr, "  got %s\n", got);
    /* The map comes first, and its source is taken from the name rules. */
    char *mt[] = {"Other", "Tail"}, *ms[] = {"Tail", "Nose"};
    skv_bone_map map = {2, mt, ms};
    matches(&t, &s, &map, got, sizeof got, &r);
    CHECK(r == SKV_OK && strcmp(got, "Root Hips Spine Nose Tail") == 0);
    if (strcmp(got, "Root Hips Spine Nose Tail") != 0) fprintf(stderr, "  got %s\n", got);
    /* A map naming a node either side lacks. */
    char *bad_t[] = {"Nope"}, *bad_s[] = {"Nope"}, *good[] = {"Tail"};
    map = (skv_bone_map){1, bad_t, good};
    matches(&t, &s, &map, got, sizeof got, &r);
    CHECK(r == SKV_ERR_ARGUMENT);
    map = (skv_bone_map){1, good, bad_s};
    matches(&t, &s, &map, got, sizeof got, &r);
    CHECK(r == SKV_ERR_ARGUMENT);
    chain_free(&t), chain_free(&s);
}

/* Unreal's mannequin, Blender's Rigify and 3ds Max's Biped onto a
 * Mixamo take; CMU's "Spine" (its chest) is not a Mixamo rig's "Spine". */
static void test_schemes(void)
{
    const char *mixamo[] = {"mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2",
                            "mixamorig:Neck", "mixamorig:Head", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg"};
    const char *unreal[] = {"pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head", "thigh_l", "calf_l"};
    const char *rigify[] = {"spine", "spine.001", "spine.002", "spine.003", "spine.004", "spine.006", "thigh.L",
                            "shin.L"};
    const char *biped[] = {"Bip01 Pelvis", "Bip01 Spine", "Bip01 Spine1", "Bip01 Spine2", "Bip01 Neck",
                           "Bip01 Head", "Bip01 L Thigh", "Bip01 L Calf"};
    const char *cmu[] = {"Hips", "LowerBack", "Spine", "Spine1", "Neck", "Head", "LeftUpLeg", "LeftLeg"};
    const char *want = "mixamorig:Hips mixamorig:Spine mixamorig:Spine1 mixamorig:Spine2 mixamorig:Neck "
                       "mixamorig:Head mixamorig:LeftUpLeg mixamorig:LeftLeg";
    skv_skeleton s = chain(mixamo, 8);
    const char *const *targets[] = {unreal, rigify, biped, cmu};
    for (int k = 0; k < 4; k++) {
        skv_skeleton t = chain(targets[k], 8);
        char got[512];
        skv_result r;
        matches(&t, &s, NULL, got, sizeof got, &r);
        CHECK(r == SKV_OK && strcmp(got, want) == 0);
        if (strcmp(got, want) != 0) fprintf(stderr, "  scheme %d: got %s\n", k, got);
        int slots[8];
        CHECK(retarget_slots(&t, slots) == 8);
        CHECK(slots[0] == 0 && strcmp(retarget_slot_name(slots[0]), "hips") == 0);
        chain_free(&t);
    }
    chain_free(&s);
}

int main(void)
{
    test_names_and_map();
    test_schemes();
    return check_summary();
}
