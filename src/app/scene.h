/* scene.h - what the two drivers (headless.h, viewer.h) share: a loaded
 * model with its chosen clip, clock, pose buffers, inspection views and
 * framed camera; the one frame function.
 *
 * Order of calls:
 *     scene_load(&scene, path, clip, &import_desc, &err)   import, frame the camera
 *     scene_set_view / _clip / _blend / _morph / _instances / _motion / _camera / _clock ...
 *     scene_renderer_create(&scene, programs, &renderer, &err)  with a current GL context
 *     per frame: scene_advance (the window's clock), then
 *                scene_draw(&scene, &renderer, &target, seconds, &frame, &err)
 *     render_destroy(&renderer); scene_free(&scene);
 * The scene owns its model, the walks it poses through and every buffer
 * it poses into; the renderer is the caller's. Drivers change the scene
 * through these functions. */
#ifndef SKV_SCENE_H
#define SKV_SCENE_H

#include "anim.h"
#include "crowd.h"
#include "error.h"
#include "import.h"
#include "layers.h"
#include "model.h"
#include "render.h"
#include "camera.h"

/* The inspection views (README "Views"): what the window's keys and the
 * --skeleton ... flags switch. */
typedef struct skv_view_options {
    int skeleton;     /* joints and bones over the mesh */
    int bind_pose;    /* the bind pose beside the animated mesh */
    skv_shade shade;  /* material, weights of weight_bone, influence count */
    int weight_bone;  /* palette index; also the skeleton's highlighted bone */
    int wireframe, normals, grid, axes;
    float background[3];
} skv_view_options;

/* What a line the drivers hand to their caller is (skv_headless_desc.say,
 * skv_viewer_desc.say): neither driver prints. */
typedef enum skv_say_kind {
    SKV_SAY_RESULT,  /* what was done or written: for standard output */
    SKV_SAY_WARNING, /* worth knowing, not an error: for standard error */
} skv_say_kind;
typedef void (*skv_say_fn)(void *user, skv_say_kind kind, const char *line);

/* Playback: where the clip is and how it moves. The window advances it
 * with wall time (scene_advance); headless renders pose given times. */
typedef struct skv_clock {
    double seconds;  /* time on the clip */
    double speed;    /* clip seconds per wall second (0: time stands) */
    int paused;
    int stop_at_end; /* hold the last frame instead of looping (window key L) */
} skv_clock;

typedef struct skv_scene {
    /* On the heap, so that the scene may be moved as a value (the window
     * replaces its scene with a dropped model's so): the walks keep the
     * model's address. */
    skv_model *model;
    skv_walks *walks; /* the model's (walks.h): every pose of the scene goes through them */
    skv_clock clock; /* starts at 0 s, speed 1, playing */
    skv_pose pose;
    int clip; /* -1 when the model has no clips */
    /* The camera, framed when first needed (scene_frame and the camera's
     * moves; --list and --export-pose never frame): framing_due 1 until
     * the first framing, 2 when the framing must be redone keeping the
     * user's angles and zoom, 0 when camera and home are current. */
    skv_camera camera;
    skv_camera home; /* the framed camera, for "reset view" */
    int framing_due;
    /* --instances: a crowd of the model on a grid (0: one character). */
    int instances, mixed_clips;
    skv_crowd crowd;
    float grid_spacing;
    /* --blend: `clip` mixed with blend_clip at blend_weight (-1: no blend). */
    int blend_clip;
    float blend_weight;
    /* --layer: layers over `clip` (layers.h; NULL: none), as described
     * (layer_desc, their masks in layer_masks) and named (layer_names,
     * the SPECs as given, for the HUD); picked: the window's layer. */
    skv_layers *layers;
    skv_layer_desc *layer_desc;
    int *layer_masks;
    char **layer_names;
    int layer_count, layer_picked;
    /* Switching clips cross-fades: for fade_seconds of the new clip's
     * time, fade_clip keeps playing from fade_from and fades out. */
    double fade_seconds;
    int fade_clip; /* -1: no fade under way */
    double fade_from;
    skv_skinning skinning; /* --skinning; the renderer must have the program */
    skv_view_options view;
    /* Following the motion (scene_set_motion): the camera follows the root
     * motion, or the root's horizontal travel is taken out (in place);
     * framing on the pose shown (frame_pose) instead of the whole clip. */
    int follow, in_place, frame_pose;
    double frame_seconds; /* frame_pose: the time of the pose framed */
    int root_node;        /* camera_root_motion_node of the clip, or -1 */
    float root_start[3];  /* where it is at the clip's start */
    float root_offset[3]; /* its horizontal travel at the last scene_frame */
    /* What the views draw with, rebuilt per frame. */
    skv_pose bind;            /* the rest pose, for view.bind_pose */
    vec3 ghost_offset;        /* scene-space place of the bind-pose copy */
    float frame_lo[3], frame_hi[3]; /* the framed bounds (the grid sits under them) */
    skv_lines bones, joints, depth_lines;
    unsigned char *joint_flags; /* overlay_joint_flags of the model, made on the skeleton view's first frame */
    float *skinned_positions, *skinned_normals; /* for view.normals */
    skv_dq_bone *dq_bones;                      /* scene_skin with dual quaternions */
    /* Morph targets (morph.h): every target's weight for the pose last
     * posed (the default weights until then), the --morph overrides (NaN:
     * none) that replace what the clip says, and room for a second clip's. */
    float *morph_weights, *morph_override, *morph_other;
} skv_scene;

/* Imports `path` (import.h options; NULL: defaults) and picks clip `anim` (index or name; NULL: the first). Frames the
 * camera on the clip's animated bounds. */
skv_result scene_load(skv_scene *scene, const char *path, const char *anim, const skv_import_desc *import,
                      skv_error *err);
void scene_free(skv_scene *scene);

/* Adds the clips of the file at `path` to the scene's model
 * (import_add_clips, with `only_without_mesh`: a file dropped on the
 * window) and has the scene's walks compiled again on the changed model
 * (walks_forget): every pose settles again. Fails as import_add_clips;
 * SKV_ERR_MEMORY when the walks had no room for the clips added (they
 * pose by the reference path then). */
skv_result scene_add_clips(skv_scene *scene, const char *path, const skv_import_desc *import, int only_without_mesh,
                           int *added, skv_error *err);

/* Plays `count` layers over the scene's clip (and every character of a
 * crowd), compiled now (layers_create: SKV_ERR_ARGUMENT naming a bad
 * layer); names[i] is layer i's label (copied). count 0: none. */
skv_result scene_set_layers(skv_scene *scene, const skv_layer_desc *desc, const char *const *names, int count,
                            skv_error *err);

/* The window's layer keys: pick the next (step 1) or previous layer,
 * change the picked layer's weight by `delta` (kept in [0, 1]), mute or
 * unmute it. Nothing without layers. */
void scene_pick_layer(skv_scene *scene, int step);
void scene_change_layer_weight(skv_scene *scene, float delta);
void scene_toggle_layer_mute(skv_scene *scene);

/* Turns the scene into `count` characters on a grid (count > 0), each at
 * its own time offset, with `mixed_clips` each playing its own clip, and
 * frames the camera on the grid. The renderer needs render_enable_crowd. */
skv_result scene_set_instances(skv_scene *scene, int count, int mixed_clips, skv_error *err);

/* Sets the inspection views (re-framing the camera when the bind-pose
 * copy comes or goes). */
void scene_set_view(skv_scene *scene, const skv_view_options *view);

/* Sets how the camera treats the motion (--follow, --in-place, --frame
 * pose; window keys T and I) and re-frames. */
void scene_set_motion(skv_scene *scene, int follow, int in_place, int frame_pose, double frame_seconds);

/* The scene's model matrix at the last scene_frame: upright, less the root's
 * travel in place mode. */
void scene_placement(const skv_scene *scene, mat4 out);

/* Switches clip and re-frames the camera. A crowd of one clip is made
 * again on the new clip: SKV_ERR_MEMORY when that fails (the scene is
 * then one character). SKV_ERR_ANIM for a clip the model lacks. */
skv_result scene_set_clip(skv_scene *scene, int clip, skv_error *err);

/* Switches to `clip` the way the window does: the current clip, which was
 * at `current_seconds`, fades out over scene->fade_seconds of the new
 * clip's time (which starts at 0). Fails as scene_set_clip. */
skv_result scene_crossfade_to(skv_scene *scene, int clip, double current_seconds, skv_error *err);

/* The camera's angles (degrees right of the front, above the ground) and
 * zoom (distance x zoom from the framed one); also what R resets to. */
void scene_set_camera(skv_scene *scene, float azimuth, float elevation, float zoom);

/* Linear blend or dual quaternions (the renderer must have the program:
 * scene_renderer_create makes what the scene asks for). */
void scene_set_skinning(skv_scene *scene, skv_skinning skinning);

/* How long a clip switch cross-fades, in seconds of the new clip. */
void scene_set_fade(skv_scene *scene, double seconds);

/* The window's camera moves: orbit by degrees (elevation kept within
 * +-89), zoom by a factor, back to the framed camera. */
void scene_orbit(skv_scene *scene, float azimuth_degrees, float elevation_degrees);
void scene_zoom(skv_scene *scene, float factor);
void scene_reset_camera(skv_scene *scene);

/* The clock's switches (the window's Space, +/-, L). */
void scene_set_paused(skv_scene *scene, int paused);
void scene_set_speed(skv_scene *scene, double speed);
void scene_set_stop_at_end(skv_scene *scene, int stop_at_end);

/* Takes the clock, fade time and views of `from` (the scene a dropped
 * model replaces): the same playback settings, the new model at 0 s. */
void scene_carry_settings(skv_scene *scene, const skv_scene *from);

/* Sets the clock: `seconds` on the clip, played at `speed`. */
void scene_set_clock(skv_scene *scene, double seconds, double speed);

/* Moves the clock on by `wall_seconds` of real time (nothing when
 * paused); with stop_at_end, holds the clip's last frame and pauses. */
void scene_advance(skv_scene *scene, double wall_seconds);

/* Pauses at `seconds` (the window's timeline and step keys). */
void scene_seek(skv_scene *scene, double seconds);

/* The clock's time as the timeline shows it: within the clip's duration. */
double scene_shown_seconds(const skv_scene *scene);

/* Switches to `clip` from the clock's time (scene_crossfade_to) and
 * starts the clock on the new clip at 0. */
skv_result scene_switch_clip(skv_scene *scene, int clip, skv_error *err);

/* Mixes clip `other` into every frame at `weight` (0: the scene's clip
 * alone, 1: `other` alone); other = -1 turns it off. */
void scene_set_blend(skv_scene *scene, int other, float weight);

/* --morph: target `target` (morph_find_target) weighs `weight` whatever
 * the clip says. */
void scene_set_morph(skv_scene *scene, int target, float weight);

/* Poses scene->pose at `seconds`: the clip, or the --blend mix, or the
 * cross-fade under way. */
void scene_pose(skv_scene *scene, double seconds);

/* Blends scene->pose on the CPU the way the scene's skinning does (linear
 * or dual quaternion): 3 floats per vertex, model space. SKV_ERR_MEMORY
 * when memory runs out. */
skv_result scene_skin(skv_scene *scene, float *positions, float *normals);

/* Poses the scene at `seconds` and fills `frame` for a width x height
 * image (scene_draw's first half). SKV_ERR_MEMORY when a view could not
 * be built: the frame goes without it. */
skv_result scene_frame(skv_scene *scene, double seconds, int width, int height, skv_frame_desc *frame);

/* The renderer for this scene, made the same way for the window and
 * headless: the model's buffers and textures, and the programs its crowd
 * and skinning need. render_destroy frees it. Influence lists the default
 * chose (model.h, influence_lists_auto) that the driver cannot hold are
 * dropped for the 4 slots, in the model too, with
 * renderer->lists_too_large set for the caller's warning. The programs
 * come from `programs`, the context's set (render_create_from; NULL: the
 * renderer's own). */
skv_result scene_renderer_create(skv_scene *scene, skv_program_set *programs, skv_renderer *renderer, skv_error *err);

/* The one frame function of both drivers (headless.h, viewer.h): poses
 * the scene at `seconds` (scene_frame) and draws it into `target`, whose
 * size it takes. Leaves the frame it drew in `frame`. */
skv_result scene_draw(skv_scene *scene, skv_renderer *renderer, skv_target *target, double seconds,
                      skv_frame_desc *frame, skv_error *err);

/* Clip duration in seconds (0 without a clip). */
double scene_clip_seconds(const skv_scene *scene);

#endif
