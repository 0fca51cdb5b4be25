/* report.c - what --list prints: the model summary as text or JSON. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "overlay.h"
#include "text.h"

/* A JSON string: valid JSON and UTF-8 whatever bytes the name holds. */
static void json_string(FILE *out, const char *text)
{
    text_put_json(out, text);
}

/* Per node: the file bone of that node or, if none, of its nearest
 * ancestor; -1 for none (the lowest bone index where a node has several).
 * One pass, nodes being parent-first (model.h): looking at every bone for
 * every ancestor of every bone took a minute on files with deep chains
 * and thousands of bones. NULL when out of memory. */
static int *bones_at_or_above(const skv_model *m)
{
    const skv_skeleton *sk = &m->skeleton;
    int *above = malloc((size_t)(sk->node_count > 0 ? sk->node_count : 1) * sizeof *above);
    if (!above) return NULL;
    for (int n = 0; n < sk->node_count; n++) above[n] = -1;
    for (int k = sk->bone_count; k-- > 0;)
        if (overlay_is_file_bone(m, k)) above[sk->bone_node[k]] = k;
    for (int n = 0; n < sk->node_count; n++)
        if (above[n] < 0 && sk->parents[n] >= 0 && sk->parents[n] < n) above[n] = above[sk->parents[n]];
    return above;
}

static const char *const material_slot_names[SKV_TEX_SLOTS] = {"base colour", "metal-rough", "normal", "occlusion",
                                                                "emissive"};
static const char *const material_slot_keys[SKV_TEX_SLOTS] = {"base_color", "metallic_roughness", "normal",
                                                               "occlusion", "emissive"};
static const char *const alpha_mode_names[] = {"opaque", "mask", "blend"};

/* A material's texture in a slot: "found" (decoded), "undecodable" (the
 * file is there but its image could not be read), "missing". */
static const char *material_texture_state(const skv_model *m, const skv_material *mat, int slot)
{
    int t = mat->textures[slot];
    if (t < 0 || t >= m->texture_count) return "missing";
    return m->textures[t].rgba ? "found" : "undecodable";
}

/* The key modes a clip's arrays use (keys.h), a bit each. */
static unsigned clip_modes(const skv_clip *clip)
{
    unsigned modes = 0;
    for (int i = 0; i < clip->channel_count; i++) {
        const skv_channel *ch = &clip->channels[i];
        modes |= 1u << ch->position_mode | 1u << ch->rotation_mode | 1u << ch->scale_mode;
    }
    for (int i = 0; i < clip->morph_channel_count; i++) modes |= 1u << clip->morph_channels[i].mode;
    return modes;
}

static const char *const mode_names[3] = {"linear", "step", "cubic"};

/* --list: each material, its model, factors and textures. */
static void report_materials(FILE *out, const skv_model *m)
{
    fprintf(out, "materials: %d\n", m->material_count);
    for (int i = 0; i < m->material_count; i++) {
        const skv_material *mat = &m->materials[i];
        fprintf(out, "  %d '", i);
        text_put_line(out, mat->name);
        fprintf(out, "': %s, base colour %.3g %.3g %.3g alpha %.3g (linear), metallic %.3g, roughness %.3g",
               mat->shading == SKV_MATERIAL_PBR ? "PBR metallic-roughness" : "Phong (mapped to metallic-roughness)",
               mat->diffuse[0], mat->diffuse[1], mat->diffuse[2], mat->diffuse[3], mat->metallic, mat->roughness);
        if (mat->emissive[0] > 0 || mat->emissive[1] > 0 || mat->emissive[2] > 0)
            fprintf(out, ", emissive %.3g %.3g %.3g", mat->emissive[0], mat->emissive[1], mat->emissive[2]);
        fprintf(out, ", alpha %s", alpha_mode_names[mat->alpha_mode]);
        if (mat->alpha_mode == SKV_ALPHA_MASK) fprintf(out, " (cutoff %.3g)", mat->alpha_cutoff);
        fprintf(out, ", %s\n", mat->double_sided ? "double-sided" : "single-sided");
        for (int k = 0; k < SKV_TEX_SLOTS; k++) {
            if (!mat->texture_paths[k]) continue;
            fprintf(out, "    %s texture '", material_slot_names[k]);
            text_put_line(out, mat->texture_paths[k]);
            const char *state = material_texture_state(m, mat, k);
            if (strcmp(state, "found") == 0)
                fprintf(out, "': found, %dx%d\n", m->textures[mat->textures[k]].width, m->textures[mat->textures[k]].height);
            else fprintf(out, "': %s\n", state);
        }
    }
}

/* Per node: is it a joint (the node of one of the file's bones)? NULL
 * when out of memory. */
static unsigned char *joint_nodes(const skv_model *m)
{
    const skv_skeleton *sk = &m->skeleton;
    unsigned char *joint = calloc((size_t)(sk->node_count > 0 ? sk->node_count : 1), 1);
    if (!joint) return NULL;
    for (int b = 0; b < sk->bone_count; b++)
        if (sk->bone_node[b] >= 0 && model_bone_from_file(m, b)) joint[sk->bone_node[b]] = 1;
    return joint;
}

/* A retargeted clip's matches (skv_clip.retarget_from): each model node
 * and the file's node it follows, then the joints left at rest. */
static void report_retarget(FILE *out, const skv_model *m, const skv_clip *clip)
{
    const skv_skeleton *sk = &m->skeleton;
    for (int n = 0; n < clip->retarget_node_count; n++) {
        if (!clip->retarget_from[n]) continue;
        fprintf(out, "      joint '");
        text_put_line(out, sk->node_names[n]);
        fprintf(out, "' <- '");
        text_put_line(out, clip->retarget_from[n]);
        fprintf(out, "'\n");
    }
    unsigned char *joint = joint_nodes(m);
    int listed = 0;
    for (int n = 0; n < clip->retarget_node_count; n++) {
        if (clip->retarget_from[n] || (joint && !joint[n])) continue;
        fprintf(out, "%s'", listed++ ? ", " : "      at rest: ");
        text_put_line(out, sk->node_names[n]);
        fprintf(out, "'");
    }
    if (listed) fprintf(out, "\n");
    free(joint);
}

static int retarget_matched(const skv_clip *clip)
{
    int matched = 0;
    for (int n = 0; n < clip->retarget_node_count; n++) matched += clip->retarget_from[n] != NULL;
    return matched;
}

void report_list_json(FILE *out, const skv_model *m)
{
    const skv_skeleton *sk = &m->skeleton;
    fprintf(out, "{\"file\":");
    json_string(out, m->path);
    fprintf(out, ",\"assimp\":");
    json_string(out, import_assimp_version());
    fprintf(out,
            ",\"vertices\":%d,\"triangles\":%d,\"influence_slots\":%d,\"influence_lists\":%s,"
            "\"influence_lists_by_default\":%s,\"meshes\":[",
            m->vertex_count, m->index_count / 3, m->influence_slots, m->influence_lists ? "true" : "false",
            m->influence_lists && m->influence_lists_auto ? "true" : "false");
    for (int i = 0; i < m->mesh_count; i++) {
        const skv_mesh *mesh = &m->meshes[i];
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, mesh->name);
        fprintf(out, ",\"vertices\":%d,\"triangles\":%d,\"bones\":%d,\"max_influences\":%d,\"morph_targets\":%d,\"node\":",
               mesh->vertex_count, mesh->index_count / 3, mesh->bone_count, mesh->max_influences,
               mesh->morph_target_count);
        json_string(out, sk->node_names[mesh->node]);
        fprintf(out, "}");
    }
    fprintf(out, "],\"materials\":[");
    for (int i = 0; i < m->material_count; i++) {
        const skv_material *mat = &m->materials[i];
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, mat->name);
        fprintf(out, ",\"model\":\"%s\",\"base_color\":[%g,%g,%g,%g],\"metallic\":%g,\"roughness\":%g,"
               "\"emissive\":[%g,%g,%g],\"alpha_mode\":\"%s\",\"alpha_cutoff\":%g,\"double_sided\":%s,\"textures\":{",
               mat->shading == SKV_MATERIAL_PBR ? "pbr" : "phong", mat->diffuse[0], mat->diffuse[1], mat->diffuse[2],
               mat->diffuse[3], mat->metallic, mat->roughness, mat->emissive[0], mat->emissive[1], mat->emissive[2],
               alpha_mode_names[mat->alpha_mode], mat->alpha_cutoff, mat->double_sided ? "true" : "false");
        int listed = 0;
        for (int k = 0; k < SKV_TEX_SLOTS; k++) {
            if (!mat->texture_paths[k]) continue;
            fprintf(out, "%s\"%s\":{\"path\":", listed++ ? "," : "", material_slot_keys[k]);
            json_string(out, mat->texture_paths[k]);
            fprintf(out, ",\"state\":\"%s\"}", material_texture_state(m, mat, k));
        }
        fprintf(out, "}}");
    }
    fprintf(out, "],\"bones\":[");
    int first = 1;
    int *above = bones_at_or_above(m);
    for (int b = 0; b < sk->bone_count; b++) {
        if (!model_bone_from_file(m, b)) continue; /* the importer's node bones */
        int parent = -1, node = sk->bone_node[b];
        if (above && node >= 0 && sk->parents[node] >= 0) parent = above[sk->parents[node]];
        for (int p = node >= 0 && !above ? sk->parents[node] : -1; p >= 0 && parent < 0; p = sk->parents[p])
            for (int k = 0; k < sk->bone_count && parent < 0; k++) /* out of memory: slowly */
                if (sk->bone_node[k] == p && overlay_is_file_bone(m, k)) parent = k;
        fprintf(out, "%s{\"index\":%d,\"name\":", first ? "" : ",", b);
        json_string(out, sk->bone_names[b]);
        fprintf(out, ",\"parent\":%d,\"node\":", parent);
        if (node >= 0) json_string(out, sk->node_names[node]);
        else fprintf(out, "null");
        fprintf(out, "}");
        first = 0;
    }
    free(above);
    /* Every node with its parent (nodes are parent-first): what --layer's
     * masks name; "joint": a file bone binds it (a name several nodes
     * share means that one). */
    fprintf(out, "],\"nodes\":[");
    unsigned char *joints = calloc((size_t)(sk->node_count > 0 ? sk->node_count : 1), 1);
    for (int b = 0; joints && b < sk->bone_count; b++)
        if (sk->bone_node[b] >= 0 && model_bone_from_file(m, b)) joints[sk->bone_node[b]] = 1;
    for (int n = 0; n < sk->node_count; n++) {
        int joint = joints && joints[n];
        for (int b = 0; !joints && b < sk->bone_count && !joint; b++) /* out of memory: slowly */
            joint = sk->bone_node[b] == n && model_bone_from_file(m, b);
        fprintf(out, "%s{\"index\":%d,\"name\":", n ? "," : "", n);
        json_string(out, sk->node_names && sk->node_names[n] ? sk->node_names[n] : "");
        fprintf(out, ",\"parent\":%d,\"joint\":%s}", sk->parents[n], joint ? "true" : "false");
    }
    free(joints);
    fprintf(out, "],\"clips\":[");
    for (int c = 0; c < m->clip_count; c++) {
        const skv_clip *clip = &m->clips[c];
        fprintf(out, "%s{\"index\":%d,\"name\":", c ? "," : "", c);
        json_string(out, clip->name ? clip->name : "");
        fprintf(out, ",\"seconds\":%.6g,\"ticks\":%.6g,\"ticks_per_second\":%g,\"channels\":%d,\"file_channels\":%d,"
               "\"source\":", clip->duration_ticks / clip->ticks_per_second, clip->duration_ticks, clip->ticks_per_second,
               clip->channel_count, clip->file_channels);
        if (clip->source) json_string(out, clip->source);
        else fprintf(out, "null");
        fprintf(out, ",\"retarget\":");
        if (clip->retarget_node_count) {
            fprintf(out, "{\"matched\":{");
            for (int n = 0, listed = 0; n < clip->retarget_node_count; n++) {
                if (!clip->retarget_from[n]) continue;
                fprintf(out, "%s", listed++ ? "," : "");
                json_string(out, sk->node_names[n]);
                fputc(':', out);
                json_string(out, clip->retarget_from[n]);
            }
            fprintf(out, "},\"at_rest\":[");
            unsigned char *joint = joint_nodes(m);
            for (int n = 0, listed = 0; n < clip->retarget_node_count; n++) {
                if (clip->retarget_from[n] || (joint && !joint[n])) continue;
                fprintf(out, "%s", listed++ ? "," : "");
                json_string(out, sk->node_names[n]);
            }
            free(joint);
            fprintf(out, "]}");
        } else {
            fprintf(out, "null");
        }
        fprintf(out, ",\"morph_channels\":%d,\"interpolations\":[", clip->morph_channel_count);
        unsigned modes = clip_modes(clip);
        for (int k = 0, listed = 0; k < 3; k++)
            if (modes & (1u << k)) fprintf(out, "%s\"%s\"", listed++ ? "," : "", mode_names[k]);
        fprintf(out, "],\"notes\":[");
        int listed = 0;
        for (unsigned bit = 1; bit; bit <<= 1)
            if ((clip->notes & bit) && model_clip_note_key(bit)) {
                fprintf(out, "%s", listed++ ? "," : "");
                json_string(out, model_clip_note_key(bit));
            }
        fprintf(out, "]}");
    }
    fprintf(out, "],\"warnings\":[");
    for (int w = 0; w < m->warning_count; w++) {
        if (w) fputc(',', out);
        json_string(out, m->warnings[w]);
    }
    fprintf(out, "]}\n");
}

/* Each file bone's parent bone (the bone of its nearest ancestor node), or
 * -1; NULL when out of memory. */
static int *bone_parents(const skv_model *m)
{
    const skv_skeleton *sk = &m->skeleton;
    int *above = bones_at_or_above(m);
    int *parent = malloc((size_t)(sk->bone_count > 0 ? sk->bone_count : 1) * sizeof *parent);
    if (!above || !parent) {
        free(above);
        free(parent);
        return NULL;
    }
    for (int b = 0; b < sk->bone_count; b++) {
        int node = sk->bone_node[b];
        parent[b] = node >= 0 && sk->parents[node] >= 0 ? above[sk->parents[node]] : -1;
        if (parent[b] == b) parent[b] = -1;
    }
    free(above);
    return parent;
}

/* One line of the bone tree. */
static void report_bone(FILE *out, const skv_model *m, int bone, int depth)
{
    enum { MAX_INDENT = 32 };
    fprintf(out, "  %*s", 2 * (depth < MAX_INDENT ? depth : MAX_INDENT), "");
    if (depth >= MAX_INDENT) fprintf(out, "(depth %d) ", depth);
    fprintf(out, "%d '", bone);
    text_put_line(out, m->skeleton.bone_names[bone]);
    fprintf(out, "'\n");
}

/* --list: the file's bones as a tree, children under their parent in
 * index order, indented by depth, each with its index (what --weights
 * takes besides the name). Past a deep chain's first levels the indent
 * stops growing and the depth is written instead. Without the memory for
 * the tree, a flat list. */
static void report_bone_tree(FILE *out, const skv_model *m)
{
    int n = m->skeleton.bone_count;
    if (n == 0) return;
    int *parent = bone_parents(m);
    int *first_child = malloc((size_t)n * sizeof(int)), *next = malloc((size_t)n * sizeof(int));
    int *stack = malloc((size_t)n * sizeof(int)), *depth = malloc((size_t)n * sizeof(int));
    char *shown = calloc((size_t)n, 1);
    if (!parent || !first_child || !next || !stack || !depth || !shown) {
        for (int b = 0; b < n; b++)
            if (model_bone_from_file(m, b)) report_bone(out, m, b, 0);
    } else {
        int *is_root = depth; /* until the walk: a file bone without a file bone above */
        for (int b = 0; b < n; b++) first_child[b] = next[b] = -1;
        for (int b = n - 1; b >= 0; b--) {
            int p = parent[b];
            int child = model_bone_from_file(m, b) && p >= 0 && model_bone_from_file(m, p);
            is_root[b] = model_bone_from_file(m, b) && !child;
            if (child) { /* prepended from the last: each list in index order */
                next[b] = first_child[p];
                first_child[p] = b;
            }
        }
        int top = 0;
        for (int b = n - 1; b >= 0; b--)
            if (is_root[b]) stack[top++] = b; /* popped in index order */
        for (int b = 0; b < n; b++) depth[b] = 0;
        /* Every file bone is pushed once (one parent each); any left
         * unshown by a cycle goes at the end, at depth 0. */
        for (int leftover = 0; leftover <= n; leftover++) {
            while (top > 0) {
                int b = stack[--top];
                shown[b] = 1;
                report_bone(out, m, b, depth[b]);
                int from = top;
                for (int c = first_child[b]; c >= 0; c = next[c])
                    if (!shown[c]) depth[c] = depth[b] + 1, stack[top++] = c;
                for (int i = from, j = top - 1; i < j; i++, j--) { /* the first child on top */
                    int t = stack[i];
                    stack[i] = stack[j], stack[j] = t;
                }
            }
            while (leftover < n && (shown[leftover] || !model_bone_from_file(m, leftover))) leftover++;
            if (leftover < n) stack[top++] = leftover, depth[leftover] = 0;
        }
    }
    free(parent), free(first_child), free(next), free(stack), free(depth), free(shown);
}

void report_list(FILE *out, const skv_model *m)
{
    fprintf(out, "file: ");
    text_put_line(out, m->path);
    fprintf(out, "\n");
    fprintf(out, "assimp: %s\n", import_assimp_version());
    fprintf(out, "meshes: %d (%d vertices, %d triangles)\n", m->mesh_count, m->vertex_count, m->index_count / 3);
    for (int i = 0; i < m->mesh_count; i++) {
        const skv_mesh *mesh = &m->meshes[i];
        fprintf(out, "  %d '", i);
        text_put_line(out, mesh->name);
        if (mesh->skinned) {
            fprintf(out, "': %d vertices, %d triangles, %d bones, max influences %d", mesh->vertex_count,
                   mesh->index_count / 3, mesh->bone_count, mesh->max_influences);
        } else {
            fprintf(out, "': %d vertices, %d triangles, no bones (follows its node '", mesh->vertex_count,
                   mesh->index_count / 3);
            text_put_line(out, m->skeleton.node_names[mesh->node]);
            fprintf(out, "')");
        }
        if (mesh->unweighted_vertices)
            fprintf(out, ", %d vertices without weights follow the node", mesh->unweighted_vertices);
        if (mesh->over_limit_vertices && m->influence_lists)
            fprintf(out, ", %d vertices over %d, every influence blended (%s)", mesh->over_limit_vertices,
                   m->influence_slots, m->influence_lists_auto ? "--influences 4 keeps the 4 largest" : "--influences all");
        else if (mesh->over_limit_vertices)
            fprintf(out, ", %d vertices over %d kept their %d largest", mesh->over_limit_vertices,
                   m->influence_slots, m->influence_slots);
        fprintf(out, "\n");
        if (mesh->morph_target_count) fprintf(out, "    morph targets: %d (--morph NAME=W):", mesh->morph_target_count);
        for (int t = 0; t < mesh->morph_target_count; t++) {
            int g = mesh->first_morph_target + t;
            fprintf(out, " %d", g);
            if (m->morph_target_names[g]) {
                fprintf(out, " '");
                text_put_line(out, m->morph_target_names[g]);
                fprintf(out, "'");
            }
            fprintf(out, " (default %g)%s", m->morph_default_weights[g], t + 1 < mesh->morph_target_count ? "," : "\n");
        }
    }
    report_materials(out, m);
    fprintf(out, "nodes: %d\n", m->skeleton.node_count);
    fprintf(out, "bones: %d (palette entries %d, shader limit %d)\n", m->file_bone_count, m->skeleton.bone_count,
           SKV_MAX_BONES);
    report_bone_tree(out, m);
    if (m->influence_lists) /* the slots stay for the weight views */
        fprintf(out, "influences: every one, from per-vertex lists (%s); vertices over %d: %d\n",
               m->influence_lists_auto ? "the default past 4" : "--influences all", m->influence_slots,
               model_over_limit_vertices(m));
    else
        fprintf(out, "influence slots: %d; vertices over %d influences: %d\n", m->influence_slots,
               m->influence_slots, model_over_limit_vertices(m));
    fprintf(out, "clips: %d\n", m->clip_count);
    if (m->clip_count == 0)
        fprintf(out, "  no animation in this file as Assimp %s reads it: shown in its rest pose\n", import_assimp_version());
    for (int c = 0; c < m->clip_count; c++) {
        const skv_clip *clip = &m->clips[c];
        fprintf(out, "  %d '", c);
        text_put_line(out, clip->name);
        fprintf(out, "': %.3f s (%g ticks at %g ticks/s), %d channels", clip->duration_ticks / clip->ticks_per_second,
               clip->duration_ticks, clip->ticks_per_second, clip->channel_count);
        if (clip->merged_from > 1)
            fprintf(out, " (%d one-channel clips of the file on one time line, played together)", clip->merged_from);
        if (clip->source && clip->retarget_node_count) {
            fprintf(out, ", retargeted from ");
            text_put_line(out, clip->source);
            fprintf(out, " (%d of the model's %d nodes follow the file's)", retarget_matched(clip),
                    clip->retarget_node_count);
        } else if (clip->source) {
            fprintf(out, ", from ");
            text_put_line(out, clip->source);
            fprintf(out, " (%d of its %d channels matched a node)", clip->channel_count, clip->file_channels);
        }
        if (clip->morph_channel_count) fprintf(out, ", %d morph channel(s)", clip->morph_channel_count);
        unsigned modes = clip_modes(clip);
        fprintf(out, ", interpolation:");
        for (int k = 0, listed = 0; k < 3; k++)
            if (modes & (1u << k)) fprintf(out, "%s %s", listed++ ? "," : "", mode_names[k]);
        fprintf(out, "\n");
        for (int k = 0; k < clip->morph_channel_count; k++) {
            const skv_morph_channel *ch = &clip->morph_channels[k];
            const skv_mesh *mesh = &m->meshes[ch->mesh];
            fprintf(out, "      morph: mesh %d '", ch->mesh);
            text_put_line(out, mesh->name);
            fprintf(out, "', targets %d-%d, %d keys (%g to %g ticks)\n", mesh->first_morph_target,
                   mesh->first_morph_target + mesh->morph_target_count - 1, ch->key_count, ch->times[0],
                   ch->times[ch->key_count - 1]);
        }
        for (unsigned bit = 1; bit; bit <<= 1)
            if ((clip->notes & bit) && model_clip_note_text(bit)) fprintf(out, "      note: %s\n", model_clip_note_text(bit));
        if (clip->retarget_node_count) report_retarget(out, m, clip);
    }
}

