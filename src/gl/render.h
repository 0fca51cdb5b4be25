/* render.h - OpenGL side: the renderer (programs, the model's buffers
 * and textures, materials) and drawing one skinned frame into the
 * offscreen target (target.h). Programs: program.h; what render_create
 * uploads from the model: upload.h.
 *
 * Needs a current GL 3.3 core context (gpu.h for headless, the viewer's
 * GLFW window otherwise) with glad loaded. The window and the headless
 * path both draw into an skv_target, so they produce the same pixels.
 *
 * Order of calls:
 *     render_create(&renderer, &model, &err)        buffers, textures, the program
 *       (or render_create_from: the programs from a set the context keeps)
 *     render_enable_crowd / render_enable_dual_quaternion   when the frames ask for them
 *     render_enable_lines                           before a frame with overlay lines or axes
 *     target_create_msaa(&target, w, h, samples, programs, &err)
 *     per frame: target_bind(&target); render_frame(&renderer, &model, &frame_desc);
 *                target_read_rgba(&target, rgba)    (resolves MSAA first)
 *     target_destroy(&target); render_destroy(&renderer);
 * The renderer copies what it needs from the model at creation; frames
 * pass palettes and views in an skv_frame_desc. */
#ifndef SKV_RENDER_H
#define SKV_RENDER_H

#include <glad/gl.h>

#include "draws.h"
#include "error.h"
#include "model.h"
#include "overlay.h"
#include "program.h"
#include "target.h"

#include "skin.h"

/* How the vertex shader blends bones (--skinning). */
typedef enum skv_skinning {
    SKV_SKINNING_LINEAR,          /* linear blend of the matrices (default) */
    SKV_SKINNING_DUAL_QUATERNION, /* skin.h: dual quaternions + stretch */
} skv_skinning;

typedef struct skv_renderer {
    /* Where the programs come from (borrowed, render_create_from): the
     * context's set, or NULL when the renderer builds and deletes its own. */
    skv_program_set *programs;
    GLuint program;
    skv_skinning program_skinning; /* what `program` does */
    skv_uniforms uniforms;
    /* Draw over nothing (alpha 0) instead of the frame's background: the
     * target then holds premultiplied colour, blended draws adding their
     * coverage to alpha; render_unpremultiply makes it straight. */
    int transparent_background;
    GLuint vao;
    GLuint buffers[6]; /* positions, normals, uvs, bone ids, weights, tangents */
    GLuint index_buffer;
    GLuint bone_block; /* uniform buffer of SKV_MAX_BONES mat4 */
    int texture_count;
    GLuint *textures;      /* per model texture: uploaded as sRGB (colour maps), or 0 */
    GLuint *data_textures; /* per model texture: uploaded linear (metal-rough, normal, occlusion maps), or 0 */
    int textures_too_large; /* not uploaded: past the driver's max_texture_side (the caller warns) */
    /* render_create refused the model's influence lists: this many texels,
     * past the driver's max_list_texels (GL_MAX_TEXTURE_BUFFER_SIZE). */
    long long lists_too_large;
    int max_list_texels;
    int max_texture_side;   /* GL_MAX_TEXTURE_SIZE */
    skv_draw_set draws; /* draws.h: palettes of at most SKV_MAX_BONES */
    /* Blended draws go last, far to near: per draw its bind-pose centre
     * and the bone that moves most of it (a model palette index, or -1),
     * which place it in each frame; and the frame's order. */
    float *draw_centres; /* 3 per draw */
    int *draw_bones;
    int *blend_order;
    float *blend_depth;
    mat4 model_view; /* the frame's view * model, for the order */
    mat4 *draw_palette; /* split mode: one draw's gathered palette */
    /* Crowds (render_enable_crowd): the instanced program and the texture
     * buffer every character's palette goes into. */
    GLuint crowd_program;
    skv_uniforms crowd_uniforms;
    GLuint crowd_buffer, crowd_texture;
    /* The crowd's vertices read their slots by gl_VertexID from these
     * views of buffers[3] (bone IDs, RGBA16UI) and buffers[4] (weights,
     * RGBA32F), not as vertex attributes (skinned.vert says why). */
    GLuint slot_textures[2];
    /* Dual-quaternion skinning (render_enable_dual_quaternion), and the
     * per-upload conversion buffers. */
    GLuint dq_program;
    skv_uniforms dq_uniforms;
    skv_dq_bone *dq_bones;
    float *dq_upload;
    /* Morph targets (models that have them): every (target, vertex)
     * delta pair in one texture buffer, every target's weight in another,
     * and each GPU vertex's model vertex index as an attribute. */
    int morph;
    GLuint morph_buffers[3]; /* deltas, weights, vertex indices */
    GLuint morph_textures[2];
    /* --influences all (model->influence_lists): per model vertex where its
     * list starts (one past the end for the last), and every (bone,
     * weight) pair, as buffer textures; 0 when the slots are used. */
    GLuint influence_buffers[2];
    GLuint influence_textures[2];
    /* Overlay lines and points. */
    GLuint line_program, line_vao, line_buffers[2];
    GLint line_u_view_projection, line_u_point_size;
    skv_lines axes; /* the gizmo's segments, made once */
} skv_renderer;

/* Compiles the shaders and uploads the model. The model must stay alive
 * while the renderer draws it (meshes and materials are read per frame). */
skv_result render_create(skv_renderer *renderer, const skv_model *model, skv_error *err);
/* Same, its programs (and those render_enable_* add) taken from
 * `programs`, the current context's set, which must outlive the renderer
 * (render_destroy leaves them there); NULL: as render_create. */
skv_result render_create_from(skv_renderer *renderer, const skv_model *model, skv_program_set *programs,
                              skv_error *err);
/* Same, with a program of the caller's built from skinned.vert (e.g. one
 * linked for transform feedback) doing `skinning`; the renderer owns it
 * from then on. */
skv_result render_create_with(skv_renderer *renderer, const skv_model *model, GLuint program, skv_skinning skinning,
                              skv_error *err);

/* Runs every vertex through the renderer's program once, as points with
 * the rasteriser off, capturing its transform-feedback varyings into
 * `feedback` in GPU vertex order (renderer->draws.source_vertex maps that
 * order to model vertices in split mode). Needs a bound framebuffer. */
void render_feedback(skv_renderer *renderer, const skv_model *model, const mat4 *palette, GLuint feedback);
/* Same, with the morph targets at `morph_weights` (per model target;
 * NULL: the defaults). */
void render_feedback_morph(skv_renderer *renderer, const skv_model *model, const mat4 *palette,
                           const float *morph_weights, GLuint feedback);
void render_destroy(skv_renderer *renderer);

typedef struct skv_frame_desc {
    const mat4 *palette; /* model->skeleton.bone_count matrices */
    const float *morph_weights; /* per model morph target; NULL: the defaults */
    mat4 model;          /* usually model->upright */
    mat4 view;
    mat4 projection;
    float background[3];
    /* A crowd (render_enable_crowd first): instance_count characters,
     * bone_count matrices each, on a grid of grid_columns, grid_spacing
     * apart on the upright scene's x/z plane. 0: one character, `palette`. */
    skv_skinning skinning; /* dual quaternions need render_enable_dual_quaternion */
    /* Inspection views (zero: none). */
    skv_shade shade;
    int selected_bone;           /* palette index for SKV_SHADE_WEIGHTS */
    int wireframe;
    const mat4 *ghost_palette;   /* the bind pose, drawn a second time... */
    mat4 ghost_model;            /* ...placed by this instead of `model` */
    const skv_lines *depth_lines;    /* scene space, hidden by the mesh (grid, normals) */
    const skv_lines *overlay_lines;  /* scene space, drawn over it (bones) */
    const skv_lines *overlay_points; /* (joints) */
    int axes;                        /* axis gizmo in the corner */
    int instance_count;
    const float *instance_palettes; /* per character bone_count 3x4 rows (crowd.h) */
    int grid_columns;
    float grid_spacing;
} skv_frame_desc;

/* Clears the bound framebuffer and draws the model (or the crowd). */
void render_frame(skv_renderer *renderer, const skv_model *model, const skv_frame_desc *frame);

/* Readies the instanced program and palette buffer for up to
 * `max_instances` characters (models of any bone count: split draws map
 * their local bones to the characters' full palettes). Fails (one line)
 * beyond the GPU's texture buffer size. */
skv_result render_enable_crowd(skv_renderer *renderer, const skv_model *model, int max_instances, skv_error *err);
/* Same, with an instanced program of the caller's built from skinned.vert
 * (e.g. one linked for transform feedback); the renderer owns it from
 * then on, also when this fails. */
skv_result render_enable_crowd_with(skv_renderer *renderer, const skv_model *model, int max_instances, GLuint program,
                                    skv_error *err);
/* The crowd's render_feedback: `count` characters (palettes: bone_count
 * 3x4 rows each, crowd.h) through the crowd program as points, rasteriser
 * off; the varyings land draw by draw, and within a draw character by
 * character in GPU vertex order. Needs render_enable_crowd(_with) for at
 * least `count` characters (else nothing is drawn) and a bound framebuffer. */
void render_feedback_crowd(skv_renderer *renderer, const skv_model *model, const float *palettes, int count,
                           GLuint feedback);

/* Builds the dual-quaternion program, so frames may ask for it. */
skv_result render_enable_dual_quaternion(skv_renderer *renderer, const skv_model *model, skv_error *err);

/* The overlay lines' program and buffers (the inspection views' lines
 * and points, the axes), made by the first call (later calls return at
 * once): a run whose frames have none compiles none. Until then a frame's
 * lines are not drawn. */
skv_result render_enable_lines(skv_renderer *renderer, skv_error *err);

/* GL debug output (KHR_debug): counts what the driver reports as errors.
 * The context should be a debug context (gpu.h / the viewer ask for one
 * with --debug). */
typedef struct skv_gl_debug {
    int errors;
    char first[256]; /* the first error's message */
} skv_gl_debug;

/* Starts collecting into `debug`; SKV_ERR_GPU when the driver has no
 * KHR_debug. */
skv_result render_debug_begin(skv_gl_debug *debug, skv_error *err);
/* SKV_OK, or SKV_ERR_GPU naming the first error `debug` collected. */
skv_result render_debug_result(const skv_gl_debug *debug, skv_error *err);
/* Stops collecting into `debug` (before it goes out of scope while the
 * context lives on, as a run's shared context does). */
void render_debug_end(skv_gl_debug *debug);

#endif
