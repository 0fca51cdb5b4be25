/* walks.h - a model's compiled walks: what pose_evaluate (anim.h) runs,
 * made from the model and kept apart from it, by its owner:
 *
 *     model (model.h)  ->  walks (walks_create)  ->  poses (pose_evaluate)
 *
 * The model is plain data; the walks are the evaluator's own: for each
 * clip (and the rest pose) the hierarchy walk compiled into flat lists,
 * its keys prepared, on the clip's first use. Several threads may pose
 * through one walks at once (a crowd's pool): the first to need a clip
 * compiles it, the others wait for it. walks_destroy frees them all. */
#ifndef SKV_WALKS_H
#define SKV_WALKS_H

#include "error.h"
#include "model.h"

typedef struct skv_walks skv_walks;

/* The walks of `model`, none compiled yet, into *walks. The model must
 * outlive them and stay where it is: they keep its address (a struct
 * that holds a model and may be moved as a value keeps it on the heap:
 * the scene does). SKV_ERR_MEMORY when memory runs out. */
skv_result walks_create(skv_walks **walks, const skv_model *model);
void walks_destroy(skv_walks *walks); /* NULL is fine */

/* The model they were made from. */
const skv_model *walks_model(const skv_walks *walks);

/* Compiles every clip's walk and the rest pose's now, rather than on
 * first use; SKV_ERR_MEMORY if memory ran out for one (that clip then
 * poses by the reference path). */
skv_result walks_compile_all(skv_walks *walks);

/* Drops every compiled walk (each is compiled again on first use): the
 * owner's call after the model changed under them, its clips added or
 * moved or its rest pose changed (import_add_clips does both). Poses
 * that played the old walks settle again in their next pose_evaluate;
 * until then they have no globals to give (pose_globals). Not while
 * another thread poses through them. SKV_ERR_MEMORY: the clips the model
 * gained have no room for walks; they pose by the reference path
 * (a crowd's characters playing them show the bind pose). */
skv_result walks_forget(skv_walks *walks);

#endif
