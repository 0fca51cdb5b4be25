/* make_assets.c - writes Skinview's bundled test models into a folder.
 *
 *   make_assets OUT_DIR
 *
 * Small skinned tubes, each with a clip that visibly bends or twists it:
 *   worm.dae                 Collada, Y-up, 3 bones, clip "Wiggle" (2 s)
 *   snake.dae                Collada, Y-up, 4 bones, clip "Wave" (1.6 s);
 *                            tools/make-assets.sh converts it to snake.fbx
 *                            with `assimp export` and deletes it
 *   arm.md5mesh/.md5anim     MD5, Z-up, 4 joints, bends and twists (2 s),
 *                            textured with arm_skin.png (written here too)
 *   twist.dae                Collada, a closed finned cylinder of 2 bones whose
 *                            upper bone twists 0 -> 180 degrees about the
 *                            axis (clip "Twist", 2.5 s): the dual-quaternion
 *                            test piece
 *   mannequin.glb            binary glTF, the default model: a textured
 *                            character of 21 joints walking, waving and
 *                            standing idle (make_character.c)
 * Vertices near a joint are shared by the two bones meeting there (2
 * influences), the rest follow one bone. Every clip's last key equals its
 * first, so playback loops without a jump. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "make_character.h"

#define MAX_BONES 8

typedef struct tube {
    int rings, sides;
    int vertex_count, triangle_count;
    float *positions; /* 3 per vertex, along +Y from 0 to bones * bone_length */
    float *normals;
    float *uvs;
    int *tris;
    int influence_count[1024 * 8];
    int influence_bone[1024 * 8][2];
    float influence_weight[1024 * 8][2];
} tube;

/* A tube along +Y split into `bones` equal segments. Near each joint the
 * weight moves smoothly from the lower bone to the upper one. */
/* With `fin` > 0 the cross-section has a ridge along +X of that relative
 * height (so a twist shows in the silhouette); `caps` closes the ends. */
static tube *make_tube(int bones, float bone_length, float radius, int rings_per_bone, int sides, int caps, float fin)
{
    tube *t = calloc(1, sizeof *t);
    t->rings = bones * rings_per_bone + 1;
    t->sides = sides;
    t->vertex_count = t->rings * sides + (caps ? 2 * (sides + 1) : 0);
    t->triangle_count = (t->rings - 1) * sides * 2 + (caps ? 2 * sides : 0);
    t->positions = malloc(sizeof(float) * 3 * t->vertex_count);
    t->normals = malloc(sizeof(float) * 3 * t->vertex_count);
    t->uvs = malloc(sizeof(float) * 2 * t->vertex_count);
    t->tris = malloc(sizeof(int) * 3 * t->triangle_count);
    float length = bones * bone_length, blend = 0.35f * bone_length;
    for (int r = 0; r < t->rings; r++) {
        float y = length * r / (t->rings - 1);
        /* Taper the top so the pose reads clearly in a silhouette. */
        float rr = radius * (1.0f - 0.45f * y / length);
        for (int s = 0; s < sides; s++) {
            int v = r * sides + s;
            float a = 2.0f * (float)M_PI * s / sides;
            if (fin > 0.0f) {
                /* r(a) = rr (1 + fin max(0, cos a)^6); the normal is the
                 * outward perpendicular of the profile's tangent. */
                float c = fmaxf(cosf(a), 0.0f), r = rr * (1.0f + fin * powf(c, 6.0f));
                float dr = -rr * fin * 6.0f * powf(c, 5.0f) * sinf(a);
                float tx = dr * cosf(a) - r * sinf(a), tz = dr * sinf(a) + r * cosf(a);
                float len = sqrtf(tx * tx + tz * tz);
                t->positions[v * 3 + 0] = r * cosf(a);
                t->positions[v * 3 + 1] = y;
                t->positions[v * 3 + 2] = r * sinf(a);
                t->normals[v * 3 + 0] = tz / len;
                t->normals[v * 3 + 1] = 0.0f;
                t->normals[v * 3 + 2] = -tx / len;
            } else {
                t->positions[v * 3 + 0] = rr * cosf(a);
                t->positions[v * 3 + 1] = y;
                t->positions[v * 3 + 2] = rr * sinf(a);
                t->normals[v * 3 + 0] = cosf(a);
                t->normals[v * 3 + 1] = 0.0f;
                t->normals[v * 3 + 2] = sinf(a);
            }
            t->uvs[v * 2 + 0] = (float)s / sides;
            t->uvs[v * 2 + 1] = y / length;

            int bone = (int)(y / bone_length);
            if (bone >= bones) bone = bones - 1;
            /* Nearest inner joint. */
            int joint = (int)floorf(y / bone_length + 0.5f);
            float d = y - joint * bone_length;
            if (joint >= 1 && joint < bones && fabsf(d) < blend) {
                float upper = 0.5f + 0.5f * d / blend;
                upper = upper * upper * (3.0f - 2.0f * upper); /* smoothstep */
                t->influence_count[v] = 2;
                t->influence_bone[v][0] = joint - 1;
                t->influence_weight[v][0] = 1.0f - upper;
                t->influence_bone[v][1] = joint;
                t->influence_weight[v][1] = upper;
            } else {
                t->influence_count[v] = 1;
                t->influence_bone[v][0] = bone;
                t->influence_weight[v][0] = 1.0f;
            }
        }
    }
    int k = 0;
    for (int r = 0; r + 1 < t->rings; r++)
        for (int s = 0; s < sides; s++) {
            int a = r * sides + s, b = r * sides + (s + 1) % sides;
            int c = a + sides, d = b + sides;
            int quad[6] = {a, c, b, b, c, d};
            memcpy(&t->tris[k], quad, sizeof quad);
            k += 6;
        }
    if (caps) {
        /* Closed ends (a solid, so a posed volume can be measured): a
         * centre and its own copy of the end ring, normals along the axis,
         * skinned like the ring it copies. */
        for (int end = 0; end < 2; end++) {
            int ring = end ? t->rings - 1 : 0;
            int centre = t->rings * sides + end * (sides + 1);
            float y = end ? length : 0.0f, ny = end ? 1.0f : -1.0f;
            for (int i = 0; i <= sides; i++) {
                int v = centre + i, src = i == 0 ? ring * sides : ring * sides + i - 1;
                memcpy(&t->positions[v * 3], &t->positions[src * 3], 3 * sizeof(float));
                if (i == 0) t->positions[v * 3 + 0] = 0.0f, t->positions[v * 3 + 1] = y, t->positions[v * 3 + 2] = 0.0f;
                t->normals[v * 3 + 0] = 0.0f, t->normals[v * 3 + 1] = ny, t->normals[v * 3 + 2] = 0.0f;
                t->uvs[v * 2 + 0] = 0.5f, t->uvs[v * 2 + 1] = end ? 1.0f : 0.0f;
                t->influence_count[v] = 1;
                t->influence_bone[v][0] = end ? bones - 1 : 0;
                t->influence_weight[v][0] = 1.0f;
            }
            for (int i = 0; i < sides; i++) {
                int a = centre + 1 + i, b = centre + 1 + (i + 1) % sides;
                /* Outward: -Y at the bottom, +Y at the top. */
                int tri[3] = {centre, end ? b : a, end ? a : b};
                memcpy(&t->tris[k], tri, sizeof tri);
                k += 3;
            }
        }
    }
    return t;
}

static void free_tube(tube *t)
{
    free(t->positions);
    free(t->normals);
    free(t->uvs);
    free(t->tris);
    free(t);
}

/* Local transform of bone `b` at time `seconds`: a rotation about `axis`
 * by `angle_fn`, after moving `bone_length` up the parent (root at 0). */
typedef float (*angle_fn)(int bone, double seconds);

static void bone_local(int bone, float bone_length, vec3 axis, float angle, mat4 out)
{
    glm_mat4_identity(out);
    if (bone > 0) glm_translate(out, (vec3){0.0f, bone_length, 0.0f});
    glm_rotate(out, angle, axis);
}

/* --- Collada ------------------------------------------------------------- */

static void write_matrix_rows(FILE *f, mat4 m)
{
    /* Collada writes matrices row by row; cglm stores columns. */
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) fprintf(f, "%s%.6g", (r || c) ? " " : "", m[c][r]);
}

typedef struct collada_desc {
    const char *path, *name, *clip;
    int bones;
    float bone_length;
    vec3 axis;
    angle_fn angle;
    double period;
    int keys;
    float color[3];
    /* Multiplies the key times written to the file (not the motion). */
    double time_scale;
} collada_desc;

static int write_collada(const collada_desc *d, tube *t)
{
    FILE *f = fopen(d->path, "w");
    if (!f) return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
               "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
               "  <asset><contributor><authoring_tool>skinview tools/make_assets.c</authoring_tool></contributor>"
               "<unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n");
    fprintf(f, "  <library_effects><effect id=\"skin-effect\"><profile_COMMON><technique sid=\"common\"><phong>"
               "<diffuse><color>%g %g %g 1</color></diffuse></phong></technique></profile_COMMON></effect>"
               "</library_effects>\n",
            d->color[0], d->color[1], d->color[2]);
    fprintf(f, "  <library_materials><material id=\"skin-material\" name=\"%sSkin\">"
               "<instance_effect url=\"#skin-effect\"/></material></library_materials>\n",
            d->name);

    /* Geometry. */
    fprintf(f, "  <library_geometries><geometry id=\"mesh\" name=\"%s\"><mesh>\n", d->name);
    fprintf(f, "    <source id=\"mesh-positions\"><float_array id=\"mesh-positions-array\" count=\"%d\">",
            t->vertex_count * 3);
    for (int i = 0; i < t->vertex_count * 3; i++) fprintf(f, "%s%.6g", i ? " " : "", t->positions[i]);
    fprintf(f, "</float_array><technique_common><accessor source=\"#mesh-positions-array\" count=\"%d\" stride=\"3\">"
               "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/>"
               "</accessor></technique_common></source>\n",
            t->vertex_count);
    fprintf(f, "    <source id=\"mesh-normals\"><float_array id=\"mesh-normals-array\" count=\"%d\">",
            t->vertex_count * 3);
    for (int i = 0; i < t->vertex_count * 3; i++) fprintf(f, "%s%.6g", i ? " " : "", t->normals[i]);
    fprintf(f, "</float_array><technique_common><accessor source=\"#mesh-normals-array\" count=\"%d\" stride=\"3\">"
               "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/>"
               "</accessor></technique_common></source>\n",
            t->vertex_count);
    fprintf(f, "    <vertices id=\"mesh-vertices\"><input semantic=\"POSITION\" source=\"#mesh-positions\"/></vertices>\n");
    fprintf(f, "    <triangles material=\"skin-material\" count=\"%d\"><input semantic=\"VERTEX\" source=\"#mesh-vertices\" offset=\"0\"/>"
               "<input semantic=\"NORMAL\" source=\"#mesh-normals\" offset=\"1\"/><p>",
            t->triangle_count);
    for (int i = 0; i < t->triangle_count * 3; i++) fprintf(f, "%s%d %d", i ? " " : "", t->tris[i], t->tris[i]);
    fprintf(f, "</p></triangles>\n  </mesh></geometry></library_geometries>\n");

    /* Skin: joints, inverse bind matrices (bone b sits at y = b * length). */
    fprintf(f, "  <library_controllers><controller id=\"skin\"><skin source=\"#mesh\">\n"
               "    <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>\n");
    fprintf(f, "    <source id=\"skin-joints\"><Name_array id=\"skin-joints-array\" count=\"%d\">", d->bones);
    for (int b = 0; b < d->bones; b++) fprintf(f, "%sbone%d", b ? " " : "", b);
    fprintf(f, "</Name_array><technique_common><accessor source=\"#skin-joints-array\" count=\"%d\" stride=\"1\">"
               "<param name=\"JOINT\" type=\"name\"/></accessor></technique_common></source>\n",
            d->bones);
    fprintf(f, "    <source id=\"skin-bind\"><float_array id=\"skin-bind-array\" count=\"%d\">", d->bones * 16);
    for (int b = 0; b < d->bones; b++) {
        mat4 inv_bind;
        glm_translate_make(inv_bind, (vec3){0.0f, -b * d->bone_length, 0.0f});
        if (b) fprintf(f, " ");
        write_matrix_rows(f, inv_bind);
    }
    fprintf(f, "</float_array><technique_common><accessor source=\"#skin-bind-array\" count=\"%d\" stride=\"16\">"
               "<param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common></source>\n",
            d->bones);
    int weight_count = 0;
    for (int v = 0; v < t->vertex_count; v++) weight_count += t->influence_count[v];
    fprintf(f, "    <source id=\"skin-weights\"><float_array id=\"skin-weights-array\" count=\"%d\">", weight_count);
    for (int v = 0, k = 0; v < t->vertex_count; v++)
        for (int i = 0; i < t->influence_count[v]; i++, k++) fprintf(f, "%s%.6g", k ? " " : "", t->influence_weight[v][i]);
    fprintf(f, "</float_array><technique_common><accessor source=\"#skin-weights-array\" count=\"%d\" stride=\"1\">"
               "<param name=\"WEIGHT\" type=\"float\"/></accessor></technique_common></source>\n",
            weight_count);
    fprintf(f, "    <joints><input semantic=\"JOINT\" source=\"#skin-joints\"/>"
               "<input semantic=\"INV_BIND_MATRIX\" source=\"#skin-bind\"/></joints>\n");
    fprintf(f, "    <vertex_weights count=\"%d\"><input semantic=\"JOINT\" source=\"#skin-joints\" offset=\"0\"/>"
               "<input semantic=\"WEIGHT\" source=\"#skin-weights\" offset=\"1\"/><vcount>",
            t->vertex_count);
    for (int v = 0; v < t->vertex_count; v++) fprintf(f, "%s%d", v ? " " : "", t->influence_count[v]);
    fprintf(f, "</vcount><v>");
    for (int v = 0, k = 0; v < t->vertex_count; v++)
        for (int i = 0; i < t->influence_count[v]; i++, k++) fprintf(f, "%s%d %d", k ? " " : "", t->influence_bone[v][i], k);
    fprintf(f, "</v></vertex_weights>\n  </skin></controller></library_controllers>\n");

    /* One clip: a sampled matrix channel per bone, all in one animation. */
    fprintf(f, "  <library_animations><animation id=\"%s\" name=\"%s\">\n", d->clip, d->clip);
    for (int b = 0; b < d->bones; b++) {
        fprintf(f, "    <animation id=\"bone%d-anim\">\n", b);
        fprintf(f, "      <source id=\"bone%d-time\"><float_array id=\"bone%d-time-array\" count=\"%d\">", b, b, d->keys);
        for (int k = 0; k < d->keys; k++)
            fprintf(f, "%s%.9g", k ? " " : "", d->time_scale * d->period * k / (d->keys - 1));
        fprintf(f, "</float_array><technique_common><accessor source=\"#bone%d-time-array\" count=\"%d\" stride=\"1\">"
                   "<param name=\"TIME\" type=\"float\"/></accessor></technique_common></source>\n",
                b, d->keys);
        fprintf(f, "      <source id=\"bone%d-pose\"><float_array id=\"bone%d-pose-array\" count=\"%d\">", b, b, d->keys * 16);
        for (int k = 0; k < d->keys; k++) {
            mat4 m;
            /* The last key repeats the first exactly: a seamless loop. */
            double seconds = k == d->keys - 1 ? 0.0 : d->period * k / (d->keys - 1);
            bone_local(b, d->bone_length, (float *)d->axis, d->angle(b, seconds), m);
            if (k) fprintf(f, " ");
            write_matrix_rows(f, m);
        }
        fprintf(f, "</float_array><technique_common><accessor source=\"#bone%d-pose-array\" count=\"%d\" stride=\"16\">"
                   "<param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common></source>\n",
                b, d->keys);
        fprintf(f, "      <source id=\"bone%d-interp\"><Name_array id=\"bone%d-interp-array\" count=\"%d\">", b, b, d->keys);
        for (int k = 0; k < d->keys; k++) fprintf(f, "%sLINEAR", k ? " " : "");
        fprintf(f, "</Name_array><technique_common><accessor source=\"#bone%d-interp-array\" count=\"%d\" stride=\"1\">"
                   "<param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common></source>\n",
                b, d->keys);
        fprintf(f, "      <sampler id=\"bone%d-sampler\"><input semantic=\"INPUT\" source=\"#bone%d-time\"/>"
                   "<input semantic=\"OUTPUT\" source=\"#bone%d-pose\"/><input semantic=\"INTERPOLATION\" source=\"#bone%d-interp\"/>"
                   "</sampler>\n",
                b, b, b, b);
        fprintf(f, "      <channel source=\"#bone%d-sampler\" target=\"bone%d/transform\"/>\n    </animation>\n", b, b);
    }
    fprintf(f, "  </animation></library_animations>\n");

    /* Scene: the joint chain in its rest pose, and the skinned mesh. */
    fprintf(f, "  <library_visual_scenes><visual_scene id=\"scene\" name=\"Scene\">\n"
               "    <node id=\"Armature\" name=\"Armature\" type=\"NODE\">\n");
    for (int b = 0; b < d->bones; b++) {
        mat4 rest;
        bone_local(b, d->bone_length, (float *)d->axis, 0.0f, rest);
        fprintf(f, "%*s<node id=\"bone%d\" name=\"bone%d\" sid=\"bone%d\" type=\"JOINT\"><matrix sid=\"transform\">",
                6 + 2 * b, "", b, b, b);
        write_matrix_rows(f, rest);
        fprintf(f, "</matrix>\n");
    }
    for (int b = d->bones - 1; b >= 0; b--) fprintf(f, "%*s</node>\n", 6 + 2 * b, "");
    fprintf(f, "    </node>\n    <node id=\"%s\" name=\"%s\" type=\"NODE\"><instance_controller url=\"#skin\">"
               "<skeleton>#bone0</skeleton><bind_material><technique_common>"
               "<instance_material symbol=\"skin-material\" target=\"#skin-material\"/>"
               "</technique_common></bind_material></instance_controller></node>\n",
            d->name, d->name);
    fprintf(f, "  </visual_scene></library_visual_scenes>\n"
               "  <scene><instance_visual_scene url=\"#scene\"/></scene>\n</COLLADA>\n");
    return fclose(f);
}

/* --- MD5 ------------------------------------------------------------------ */

/* MD5 stores unit quaternions as x, y, z with w = -sqrt(1 - x^2 - y^2 - z^2):
 * pick the sign of q that has w <= 0. */
static void md5_quat(mat4 m, float out[3])
{
    versor q;
    glm_mat4_quat(m, q);
    float sign = q[3] > 0.0f ? -1.0f : 1.0f;
    out[0] = sign * q[0], out[1] = sign * q[1], out[2] = sign * q[2];
}

/* MD5 is Z-up: the generator's +Y tube is turned onto +Z. */
static void md5_from_y_up(mat4 m)
{
    mat4 y_to_z;
    glm_rotate_make(y_to_z, (float)M_PI_2, (vec3){1.0f, 0.0f, 0.0f});
    glm_mat4_mul(y_to_z, m, m);
}

static float arm_angle(int bone, double seconds)
{
    return bone == 0 ? 0.0f : glm_rad(38.0f) * sinf((float)(2.0 * M_PI * seconds / 2.0) - 0.6f * bone);
}

static float arm_twist(int bone, double seconds)
{
    return bone == 3 ? glm_rad(60.0f) * sinf((float)(2.0 * M_PI * seconds / 2.0)) : 0.0f;
}

/* Local transform of an arm joint: translate up the parent, bend about X,
 * and (last joint) twist about its own axis; `rest` gives the unbent bind
 * pose. Joint 0 also carries Y-up -> Z-up: MD5's root is in object space. */
static void arm_local(int bone, float bone_length, double seconds, int rest, mat4 out)
{
    bone_local(bone, bone_length, (vec3){1.0f, 0.0f, 0.0f}, rest ? 0.0f : arm_angle(bone, seconds), out);
    glm_rotate(out, rest ? 0.0f : arm_twist(bone, seconds), (vec3){0.0f, 1.0f, 0.0f});
    if (bone == 0) md5_from_y_up(out);
}

static int write_md5(const char *mesh_path, const char *anim_path, tube *t, int bones, float bone_length,
                     int frames, int frame_rate)
{
    FILE *f = fopen(mesh_path, "w");
    if (!f) return -1;
    fprintf(f, "MD5Version 10\ncommandline \"skinview tools/make_assets.c\"\n\nnumJoints %d\nnumMeshes 1\n\njoints {\n",
            bones);
    mat4 global[MAX_BONES];
    for (int b = 0; b < bones; b++) {
        mat4 local;
        arm_local(b, bone_length, 0.0, 1, local);
        if (b == 0) glm_mat4_copy(local, global[b]);
        else glm_mat4_mul(global[b - 1], local, global[b]);
        float q[3];
        md5_quat(global[b], q);
        fprintf(f, "\t\"joint%d\"\t%d ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n", b, b - 1, global[b][3][0],
                global[b][3][1], global[b][3][2], q[0], q[1], q[2]);
    }
    fprintf(f, "}\n\nmesh {\n\tshader \"arm_skin.png\"\n\n\tnumverts %d\n", t->vertex_count);
    int weight = 0;
    for (int v = 0; v < t->vertex_count; v++) {
        fprintf(f, "\tvert %d ( %.6f %.6f ) %d %d\n", v, t->uvs[v * 2], 1.0f - t->uvs[v * 2 + 1], weight,
                t->influence_count[v]);
        weight += t->influence_count[v];
    }
    fprintf(f, "\n\tnumtris %d\n", t->triangle_count);
    for (int i = 0; i < t->triangle_count; i++)
        fprintf(f, "\ttri %d %d %d %d\n", i, t->tris[i * 3], t->tris[i * 3 + 2], t->tris[i * 3 + 1]);
    fprintf(f, "\n\tnumweights %d\n", weight);
    weight = 0;
    for (int v = 0; v < t->vertex_count; v++)
        for (int i = 0; i < t->influence_count[v]; i++) {
            /* Weight positions are in the joint's frame. */
            int b = t->influence_bone[v][i];
            vec4 model_pos = {t->positions[v * 3], t->positions[v * 3 + 1], t->positions[v * 3 + 2], 1.0f};
            mat4 y_to_z, to_joint;
            glm_rotate_make(y_to_z, (float)M_PI_2, (vec3){1.0f, 0.0f, 0.0f});
            vec4 object_pos, joint_pos;
            glm_mat4_mulv(y_to_z, model_pos, object_pos);
            glm_mat4_inv(global[b], to_joint);
            glm_mat4_mulv(to_joint, object_pos, joint_pos);
            fprintf(f, "\tweight %d %d %.6f ( %.6f %.6f %.6f )\n", weight++, b, t->influence_weight[v][i], joint_pos[0],
                    joint_pos[1], joint_pos[2]);
        }
    fprintf(f, "}\n");
    if (fclose(f) != 0) return -1;

    f = fopen(anim_path, "w");
    if (!f) return -1;
    fprintf(f, "MD5Version 10\ncommandline \"skinview tools/make_assets.c\"\n\nnumFrames %d\nnumJoints %d\n"
               "frameRate %d\nnumAnimatedComponents %d\n\nhierarchy {\n",
            frames, bones, frame_rate, bones * 6);
    for (int b = 0; b < bones; b++) fprintf(f, "\t\"joint%d\"\t%d 63 %d\n", b, b - 1, b * 6);
    fprintf(f, "}\n\nbounds {\n");
    for (int i = 0; i < frames; i++) fprintf(f, "\t( -2 -2 -0.5 ) ( 2 2 4 )\n");
    fprintf(f, "}\n\nbaseframe {\n");
    for (int b = 0; b < bones; b++) {
        mat4 local;
        arm_local(b, bone_length, 0.0, 1, local);
        float q[3];
        md5_quat(local, q);
        fprintf(f, "\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n", local[3][0], local[3][1], local[3][2], q[0], q[1], q[2]);
    }
    fprintf(f, "}\n");
    double period = (double)(frames - 1) / frame_rate;
    for (int i = 0; i < frames; i++) {
        double seconds = i == frames - 1 ? 0.0 : period * i / (frames - 1);
        fprintf(f, "\nframe %d {\n", i);
        for (int b = 0; b < bones; b++) {
            mat4 local;
            arm_local(b, bone_length, seconds, 0, local);
            float q[3];
            md5_quat(local, q);
            fprintf(f, "\t%.6f %.6f %.6f %.6f %.6f %.6f\n", local[3][0], local[3][1], local[3][2], q[0], q[1], q[2]);
        }
        fprintf(f, "}\n");
    }
    return fclose(f);
}

/* A striped texture, so the MD5 asset exercises texture loading. */
static int write_arm_texture(const char *path)
{
    enum { SIZE = 64 };
    static unsigned char rgba[SIZE * SIZE * 4];
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            unsigned char *p = &rgba[(y * SIZE + x) * 4];
            int stripe = (y / 8) % 2, dot = ((x / 8) + (y / 8)) % 4 == 0;
            p[0] = dot ? 240 : stripe ? 70 : 110;
            p[1] = dot ? 200 : stripe ? 120 : 160;
            p[2] = dot ? 60 : stripe ? 200 : 235;
            p[3] = 255;
        }
    return stbi_write_png(path, SIZE, SIZE, 4, rgba, SIZE * 4) ? 0 : -1;
}

static float worm_angle(int bone, double seconds)
{
    double phase = 2.0 * M_PI * seconds / 2.0;
    return bone == 0 ? glm_rad(10.0f) * sinf((float)phase) : glm_rad(32.0f) * sinf((float)phase - 0.9f * bone);
}

/* The child bone twists about the tube's axis: 90 degrees per second up
 * to 180 at 2 s, held until the clip ends at 2.5 s (a ramp, not a loop:
 * --time 1 and --time 2 show 90 and 180 degrees). */
static float twist_angle(int bone, double seconds)
{
    return bone == 0 ? 0.0f : glm_rad(90.0f) * (float)fmin(seconds, 2.0);
}

static float snake_angle(int bone, double seconds)
{
    double phase = 2.0 * M_PI * seconds / 1.6;
    return bone == 0 ? 0.0f : glm_rad(28.0f) * sinf((float)phase - 1.1f * bone);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_assets OUT_DIR\n");
        return 2;
    }
    char path[4096], path2[4096];
    int failed = 0;

    /* The Collada assets: a tube each (bones, radius, rings per bone,
     * sides, caps, fin) and its motion. */
    static const struct {
        const char *file;
        int rings, sides, caps;
        float radius, fin;
        collada_desc motion; /* path filled in below */
    } colladas[] = {
        {"worm.dae", 8, 16, 0, 0.28f, 0.0f,
         {.name = "Worm", .clip = "Wiggle", .bones = 3, .bone_length = 1.0f, .axis = {0.0f, 0.0f, 1.0f},
          .angle = worm_angle, .period = 2.0, .keys = 41, .color = {0.35f, 0.75f, 0.35f}, .time_scale = 1.0}},
        /* snake.dae only feeds Assimp 5.2.5's FBX exporter, which writes a
         * clip's ticks as if they were seconds; Collada imports at 1000
         * ticks/s, so key times are written in thousandths to come out
         * right in FBX. */
        {"snake.dae", 6, 14, 0, 0.22f, 0.0f,
         {.name = "Snake", .clip = "Wave", .bones = 4, .bone_length = 0.8f, .axis = {1.0f, 0.0f, 0.0f},
          .angle = snake_angle, .period = 1.6, .keys = 33, .color = {0.9f, 0.55f, 0.2f}, .time_scale = 0.001}},
        /* Dual-quaternion test piece: a closed cylinder with a fin along
         * one side (the twist shows), 2 bones, twisting. */
        {"twist.dae", 12, 32, 1, 0.3f, 0.6f,
         {.name = "Twist", .clip = "Twist", .bones = 2, .bone_length = 1.0f, .axis = {0.0f, 1.0f, 0.0f},
          .angle = twist_angle, .period = 2.5, .keys = 51, .color = {0.55f, 0.6f, 0.85f}, .time_scale = 1.0}},
    };
    for (size_t i = 0; i < sizeof colladas / sizeof colladas[0]; i++) {
        collada_desc d = colladas[i].motion;
        tube *t = make_tube(d.bones, d.bone_length, colladas[i].radius, colladas[i].rings, colladas[i].sides,
                            colladas[i].caps, colladas[i].fin);
        snprintf(path, sizeof path, "%s/%s", argv[1], colladas[i].file);
        d.path = path;
        failed |= write_collada(&d, t) != 0;
        free_tube(t);
    }

    tube *arm = make_tube(4, 0.7f, 0.25f, 6, 14, 0, 0.0f);
    snprintf(path, sizeof path, "%s/arm.md5mesh", argv[1]);
    snprintf(path2, sizeof path2, "%s/arm.md5anim", argv[1]);
    failed |= write_md5(path, path2, arm, 4, 0.7f, 49, 24) != 0;
    free_tube(arm);
    snprintf(path, sizeof path, "%s/arm_skin.png", argv[1]);
    failed |= write_arm_texture(path) != 0;

    snprintf(path, sizeof path, "%s/mannequin.glb", argv[1]);
    failed |= write_character(path) != 0;

    if (failed) fprintf(stderr, "make_assets: could not write into %s\n", argv[1]);
    return failed;
}
