/* retarget.h - a clip made for one skeleton, re-expressed once, at load,
 * as a clip of another skeleton (--anim-file FILE --retarget).
 *
 * The result is an ordinary skv_clip of the target model: every later
 * stage (the walk, crowds, blends, --export-pose) plays it unchanged.
 *
 * Usage:
 *     int *source_of = malloc(target->skeleton.node_count * sizeof *source_of);
 *     retarget_match(&target->skeleton, &source->skeleton, map, source_of, &err);
 *     for each source clip c:
 *         retarget_clip(target, source, &source->clips[c], source_of, &out, &err);
 *
 * Matching (retarget_match): a target node takes the source node the bone
 * map names for it; else, among source nodes not taken yet, the one of the
 * same name, then of the same name ignoring case, then without namespace
 * prefixes ("mixamorig:Hips", "Armature|Hips"), then the one that holds
 * the same place in a common humanoid naming scheme (retarget_slots); a
 * name match the two rigs' schemes place differently is none.
 *
 * The transfer (retarget_clip), sampled at every key time of the source
 * clip: a matched target joint turns in world space as its source joint
 * turns away from the source's rest pose, about the target's own rest
 * pose, after
 * - turning the source about the vertical (or onto the target's up axis)
 *   where the two rigs face differently in their rest poses (hips -> head,
 *   left -> right upper arm or thigh), and
 * - turning the target joint's rest bone onto the source's (a T-pose
 *   clip on an A-pose rig) where a joint has one matched child and the two
 *   differ by more than a degree.
 * The root (the topmost matched joint at or under the topmost node whose
 * translation the clip moves) follows the source root's world position
 * times the ratio of the rigs' hip heights; other joints keep the target's
 * own offsets, plus what the clip changes in the source's (scaled and
 * turned into the target's frame). Unmatched target nodes keep their rest
 * pose. A rig that differs from the source only by names (with a map),
 * rest frames (the skin rebound to match) or a uniform scale gets the
 * source's pose back (scaled). */
#ifndef SKV_RETARGET_H
#define SKV_RETARGET_H

#include "error.h"
#include "model.h"

/* {"targetBone": "sourceBone", ...}: pairs in file order. */
typedef struct skv_bone_map {
    int count;
    char **target;
    char **source;
} skv_bone_map;

void retarget_map_free(skv_bone_map *map);

/* Per target node, the source node it follows, or -1 (stays at rest).
 * SKV_ERR_ARGUMENT where `map` (may be NULL) names a node one of the two
 * lacks ("the model has no node 'X'" / "the animation file has no node
 * 'Y'"); SKV_ERR_MEMORY. */
skv_result retarget_match(const skv_skeleton *target, const skv_skeleton *source, const skv_bone_map *map,
                          int *source_of, skv_error *err);

/* The common humanoid places a node's name holds in `skeleton`'s naming
 * scheme (Mixamo, CMU BVH, 3ds Max Biped, Unreal, Rigify, Blender's
 * metarig, VRM; the scheme most of the skeleton's names belong to):
 * per node its slot, or -1. Returns the number of nodes with a slot.
 * Exposed for the tests. */
int retarget_slots(const skv_skeleton *skeleton, int *slot_of);
/* A slot's name ("hips", "left upper arm", ...); NULL past the last. */
const char *retarget_slot_name(int slot);

/* `clip` (of `source`) as a clip of `target`, keyed at every key time of
 * the clip (with points between for cubic keys and before step keys),
 * linear. Its name and time line are the clip's; source and the morph
 * channels are left unset. out->retarget_from: per target node, the
 * source node's name it follows, NULL where it stays at rest. SKV_OK or
 * SKV_ERR_MEMORY (`out` then empty). */
skv_result retarget_clip(const skv_model *target, const skv_model *source, const skv_clip *clip,
                         const int *source_of, skv_clip *out, skv_error *err);

#endif
