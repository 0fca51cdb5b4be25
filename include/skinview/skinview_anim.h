/* skinview_anim.h - libskinview_anim, Skinview's animation core, for
 * programs of your own: no GL, no Assimp, no image library; cglm, libm
 * and pthreads only. Install it with Skinview (`cmake --install`), build
 * with `pkg-config --cflags --libs skinview_anim`.
 *
 * What it holds, in the order a program uses it:
 *   model.h  the plain model: skeleton (parent-first nodes, bones with
 *            offset matrices), clips (keys per node), meshes, influences.
 *            Fill one yourself (examples/pose_arm.c) or get one from
 *            Skinview's importer; model_free releases it.
 *   walks.h  walks_create(&walks, model): the evaluator's compiled walks
 *            of the model's clips, yours to keep beside it (each clip's
 *            compiled on first use); walks_destroy.
 *   anim.h   pose_create, then per frame pose_evaluate(pose, walks, clip,
 *            seconds): the palette final[b] = globalInverse *
 *            global(node of b) * offset[b]; pose_evaluate_reference
 *            (from the model alone) is the specification it matches;
 *            pose_destroy.
 *   keys.h   what both evaluators stand on: a clip's time for a time in
 *            seconds (keys_clip_ticks), a key array's value at a clip
 *            time (keys_sample_vec3, keys_sample_quat, keys_slerp).
 *   skin.h   the palette applied on the CPU (linear or dual quaternion),
 *            exactly as Skinview's shader does.
 *   morph.h  morph target weights per frame.
 *   layers.h clips over a base clip: on a body part (a mask of nodes)
 *            or added (additive), each at a weight; layers_create once,
 *            pose_evaluate_layers per frame.
 *   crowd.h  many characters of one model posed on a thread pool.
 * Results: functions that can fail return skv_result (error.h). These
 * headers are the library's public ones (include/skinview, installed);
 * the rest of src/core is its own. */
#ifndef SKINVIEW_ANIM_H
#define SKINVIEW_ANIM_H

#include "error.h"
#include "model.h"
#include "walks.h"
#include "anim.h"
#include "keys.h"
#include "skin.h"
#include "morph.h"
#include "layers.h"
#include "crowd.h"

#endif
