/* stick.h - a stick figure for a file that has a skeleton and clips but no
 * mesh (animation-only downloads, mocap, animation libraries).
 *
 * The figure is ordinary skinned geometry, so everything that draws,
 * frames, exports or checks a mesh works on it unchanged: one octahedral
 * "bone" from each joint to each of its child joints, rigidly bound to
 * the parent joint, and a small diamond on every joint, bound to it. Each
 * joint becomes one palette entry named after its node (offset: the
 * inverse of its rest global), so --list, the skeleton view and the weight
 * view see the joints as bones.
 *
 * Call after the skeleton (nodes, rest pose, global_inverse) is filled and
 * before clips are compiled; the model must have no meshes or bones yet. */
#ifndef SKV_STICK_H
#define SKV_STICK_H

#include "error.h"
#include "model.h"

/* Builds the figure over the nodes with moving[n] != 0 (those a clip
 * moves), less lone ones (a camera, a light) when the rest form a tree.
 * SKV_ERR_MEMORY when memory runs out (the model is then left for
 * model_free). */
skv_result stick_figure_build(skv_model *model, const unsigned char *moving);

#endif
