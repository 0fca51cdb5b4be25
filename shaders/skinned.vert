// skinned.vert - linear blend skinning, 4 influences per vertex, or 8 when
// the model was loaded with --influences 8 (SKV_INFLUENCE_SLOTS), or every
// influence from per-vertex lists with --influences all (SKV_INFLUENCE_LISTS); with
// SKV_DUAL_QUATERNION, dual-quaternion skinning; with SKV_INSTANCED, a
// crowd drawn instanced (linear).
// The renderer prepends "#version 330 core" and the SKV_* defines from
// src/skv_limits.h, so the bone limit and attribute locations live in one place.

layout(location = SKV_ATTR_POSITION) in vec3 a_position;
layout(location = SKV_ATTR_NORMAL) in vec3 a_normal;
layout(location = SKV_ATTR_UV) in vec2 a_uv;
// Tangents (models with normal maps): xyz along +u, w the bitangent's
// side. Without the attribute GL supplies (0, 0, 0, 1): no tangent.
layout(location = SKV_ATTR_TANGENT) in vec4 a_tangent;

// The vertex's slots: bone IDs and weights, largest weight first, 0 in
// those it does not use (skin.c, skin_pack_influences); slots 5-8 in the
// _1 pair with 8 slots. A single draw reads them as vertex attributes. A
// crowd pulls them by gl_VertexID from buffer textures over the same
// buffers: on a lent H100 (a compute part with few graphics units) the
// crowd's vertex rate fell with each attribute a vertex read (Fox: 0.33 G
// vertices/s with the lists' 3, 0.22 G with 4 slots' 5, 0.167 G with 8
// slots' 7). Pulled, BCN's crowd at 60 fps went from 1,280 characters to
// 1,920-2,048 (8 slots: 960 to 1,664-1,792), Fox's from 7,680-8,192 to
// 11,264; the lists, which read no slot attribute, held 1,920-2,048
// already. llvmpipe draws the same within noise (bench/NOTES.md v7u).
ivec4 slot_ids;
vec4 slot_weights;
#if SKV_INFLUENCE_SLOTS > 4
ivec4 slot_ids_1;
vec4 slot_weights_1;
#endif
#if SKV_INSTANCED
uniform usamplerBuffer u_slot_ids;  // RGBA16UI: SKV_INFLUENCE_SLOTS / 4 texels a GPU vertex
uniform samplerBuffer u_slot_weights; // RGBA32F, likewise
#else
layout(location = SKV_ATTR_BONE_IDS) in ivec4 a_bone_ids; // integer attribute
layout(location = SKV_ATTR_WEIGHTS) in vec4 a_weights;
#if SKV_INFLUENCE_SLOTS > 4
layout(location = SKV_ATTR_BONE_IDS_1) in ivec4 a_bone_ids_1;
layout(location = SKV_ATTR_WEIGHTS_1) in vec4 a_weights_1;
#endif
#endif

void read_slots()
{
#if SKV_INSTANCED
    int first = gl_VertexID * (SKV_INFLUENCE_SLOTS / 4);
    slot_ids = ivec4(texelFetch(u_slot_ids, first));
    slot_weights = texelFetch(u_slot_weights, first);
#if SKV_INFLUENCE_SLOTS > 4
    slot_ids_1 = ivec4(texelFetch(u_slot_ids, first + 1));
    slot_weights_1 = texelFetch(u_slot_weights, first + 1);
#endif
#else
    slot_ids = a_bone_ids;
    slot_weights = a_weights;
#if SKV_INFLUENCE_SLOTS > 4
    slot_ids_1 = a_bone_ids_1;
    slot_weights_1 = a_weights_1;
#endif
#endif
}

#if SKV_MORPH && !SKV_INSTANCED
// Morph targets (blend shapes), added before skinning (src/morph.h;
// morph_vertex is this on the CPU). Per (target, vertex) of a mesh two
// texels: the position delta and the normal delta; the mesh's pairs start
// at u_morph_base, target after target, u_morph_vertices each. Every
// target's weight is in u_morph_weights, the mesh's from
// u_morph_first_target on. The loop runs over all the mesh's targets.
layout(location = SKV_ATTR_VERTEX) in int a_vertex; // model vertex index (split copies keep theirs)
uniform samplerBuffer u_morph_deltas;
uniform samplerBuffer u_morph_weights;
uniform int u_morph_first_target;
uniform int u_morph_count;
uniform int u_morph_base;
uniform int u_morph_vertices;
uniform int u_morph_first_vertex;

void morph(inout vec3 position, inout vec3 normal)
{
    int local = a_vertex - u_morph_first_vertex;
    bool moved = false;
    vec3 n = normal;
    for (int t = 0; t < u_morph_count; t++) {
        float w = texelFetch(u_morph_weights, u_morph_first_target + t).r;
        if (w == 0.0) continue;
        int pair = (u_morph_base + t * u_morph_vertices + local) * 2;
        position += w * texelFetch(u_morph_deltas, pair).xyz;
        n += w * texelFetch(u_morph_deltas, pair + 1).xyz;
        moved = true;
    }
    if (moved) {
        float len = length(n);
        normal = len > 1e-20 ? n / len : normal; // targets that cancel the normal keep the base one
    }
}
#endif

// The palette: final[b] = globalInverse * global(node of b) * offset[b].
#if SKV_INSTANCED
// A crowd (--instances): every character's palette in one texture buffer,
// 3 texels per matrix (its top three rows; the bottom row of an affine
// matrix is 0 0 0 1), character after character; one instanced draw per
// mesh, characters on a grid on the ground plane.
uniform samplerBuffer u_palettes;
uniform int u_bones_per_instance;
uniform int u_grid_columns;
uniform float u_grid_spacing;
#if SKV_CROWD_SPLIT
// Models of more than SKV_MAX_BONES bones draw in split draws (draws.h)
// whose vertices carry draw-local bone IDs: each draw's map to the model's
// bones, which index the characters' full palettes.
uniform int u_crowd_bones[SKV_MAX_BONES];
#endif

mat4 bone(int id)
{
#if SKV_CROWD_SPLIT
    id = u_crowd_bones[id];
#endif
    int base = (gl_InstanceID * u_bones_per_instance + id) * 3;
    vec4 r0 = texelFetch(u_palettes, base), r1 = texelFetch(u_palettes, base + 1), r2 = texelFetch(u_palettes, base + 2);
    return mat4(vec4(r0.x, r1.x, r2.x, 0.0), vec4(r0.y, r1.y, r2.y, 0.0), vec4(r0.z, r1.z, r2.z, 0.0),
                vec4(r0.w, r1.w, r2.w, 1.0));
}
#elif SKV_DUAL_QUATERNION
// --skinning dq: each palette entry as a unit dual quaternion plus the
// "stretch" (scale/shear) the matrix has beyond its rotation; skin.h
// explains the conversion, skin_blend_dq is this shader on the CPU.
layout(std140) uniform Bones {
    vec4 dq_real[SKV_MAX_BONES];
    vec4 dq_dual[SKV_MAX_BONES];
    mat4 dq_stretch[SKV_MAX_BONES];
};
#else
// In a uniform block: GL 3.3 guarantees 16 KB there, but only 1024
// components (64 mat4) for plain vertex uniforms.
layout(std140) uniform Bones {
    mat4 bones[SKV_MAX_BONES];
};

mat4 bone(int id)
{
    return bones[id];
}
#endif

#if SKV_DUAL_QUATERNION && !SKV_INSTANCED
vec4 blend_real;
vec4 blend_dual;
mat4 blend_stretch;

// One influence: its sign against the first influence's rotation (q and
// -q are one rotation; blending them as they come would cancel).
void add_influence(int id, float weight, vec4 pivot)
{
    float w = dot(dq_real[id], pivot) < 0.0 ? -weight : weight;
    blend_real += dq_real[id] * w;
    blend_dual += dq_dual[id] * w;
    blend_stretch += dq_stretch[id] * weight;
}

vec3 rotate(vec4 q, vec3 v)
{
    return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}
#endif

#if SKV_INFLUENCE_LISTS
uniform isamplerBuffer u_influence_starts; // per GPU vertex, then one past the last
uniform samplerBuffer u_influence_pairs;   // (bone, weight)

// This vertex's list: pairs [x, y) of u_influence_pairs.
ivec2 influence_list()
{
    return ivec2(texelFetch(u_influence_starts, gl_VertexID).r, texelFetch(u_influence_starts, gl_VertexID + 1).r);
}
#endif

uniform mat4 u_model;      // upright: the root transform the palette cancels
uniform mat4 u_view;
uniform mat4 u_projection;
uniform mat3 u_view_normal; // inverse transpose of mat3(view * model), per frame

// Inspection views (render.h, skv_shade; the preamble defines SKV_SHADE_*):
// SKV_SHADE_WEIGHTS = weight of u_selected_bone,
// SKV_SHADE_INFLUENCES = number of influences; the fragment shader colours v_value.
uniform int u_shade_mode;
uniform int u_selected_bone;
out float v_value;

out vec3 v_view_position;
out vec3 v_view_normal;
out vec4 v_view_tangent;
out vec2 v_uv;
// Model-space skinned position and normal. The fragment shader ignores
// them; tests capture them with transform feedback to check this shader
// against the CPU blend (tests/unit/test_shader_exact.c).
out vec3 v_skinned_position;
out vec3 v_skinned_normal;
out vec3 v_skinned_tangent; // unit, or 0 where the vertex has no tangent

// The skinned normal, as skin.c's skinned_normal: the cofactors of m (its
// inverse transpose up to a factor, normalised away) times the sign of its
// determinant, after dividing m by its largest entry. Unlike inverse() it
// stays finite for a singular matrix (a bone scaled to 0: NaN normals,
// issue #21); where even the cofactors vanish the unskinned normal stands in.
vec3 safe_normal(mat3 m, vec3 n)
{
    vec3 a = abs(m[0]), b = abs(m[1]), c = abs(m[2]);
    float largest = max(max(max(a.x, a.y), max(a.z, b.x)), max(max(b.y, b.z), max(c.x, max(c.y, c.z))));
    if (largest > 0.0) m *= 1.0 / largest;
    vec3 x12 = cross(m[1], m[2]), x20 = cross(m[2], m[0]), x01 = cross(m[0], m[1]);
    float sign = dot(m[0], x12) < 0.0 ? -1.0 : 1.0;
    vec3 out_n = sign * (x12 * n.x + x20 * n.y + x01 * n.z);
    float len = length(out_n);
    if (len > 1e-20) return out_n / len;
    len = length(n);
    return len > 1e-20 ? n / len : vec3(0.0, 1.0, 0.0);
}

void main()
{
    vec3 position = a_position;
    vec3 normal = a_normal;
#if !SKV_INFLUENCE_LISTS
    read_slots();
#endif
#if SKV_MORPH && !SKV_INSTANCED
    morph(position, normal);
#endif
#if SKV_DUAL_QUATERNION && !SKV_INSTANCED
    blend_real = vec4(0.0);
    blend_dual = vec4(0.0);
    blend_stretch = mat4(0.0);
#if SKV_INFLUENCE_LISTS
    // --influences all: the vertex's whole list (largest first, so the
    // pivot is the slots' too), as skin_blend_dq does.
    ivec2 list = influence_list();
    vec4 pivot = dq_real[list.x < list.y ? int(texelFetch(u_influence_pairs, list.x).r) : 0];
    for (int i = list.x; i < list.y; i++) {
        vec2 pair = texelFetch(u_influence_pairs, i).rg;
        add_influence(int(pair.x), pair.y, pivot);
    }
#else
    vec4 pivot = dq_real[slot_ids.x];
    add_influence(slot_ids.x, slot_weights.x, pivot);
    add_influence(slot_ids.y, slot_weights.y, pivot);
    add_influence(slot_ids.z, slot_weights.z, pivot);
    add_influence(slot_ids.w, slot_weights.w, pivot);
#if SKV_INFLUENCE_SLOTS > 4
    add_influence(slot_ids_1.x, slot_weights_1.x, pivot);
    add_influence(slot_ids_1.y, slot_weights_1.y, pivot);
    add_influence(slot_ids_1.z, slot_weights_1.z, pivot);
    add_influence(slot_ids_1.w, slot_weights_1.w, pivot);
#endif
#endif
    float len = length(blend_real);
    vec4 real = blend_real / len;
    vec4 dual = blend_dual / len;
    vec3 translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
    vec4 skinned = vec4(rotate(real, (blend_stretch * vec4(position, 1.0)).xyz) + translation, 1.0);
    vec3 skinned_normal = rotate(real, safe_normal(mat3(blend_stretch), normal));
    // Tangents lie in the surface: they move like positions, not normals.
    vec3 skinned_tangent = rotate(real, mat3(blend_stretch) * a_tangent.xyz);
#elif SKV_INFLUENCE_LISTS
    // --influences all: every influence of the vertex, from its list (the
    // CPU's skin_blend_all). gl_VertexID is the GPU vertex: the model's
    // vertex, or in split mode (over SKV_MAX_BONES bones) its copy, whose
    // list holds draw-local bones (draws.h).
    mat4 skin = mat4(0.0);
    ivec2 list = influence_list();
    for (int i = list.x; i < list.y; i++) {
        vec2 pair = texelFetch(u_influence_pairs, i).rg;
        skin += bone(int(pair.x)) * pair.y;
    }
    vec4 skinned = skin * vec4(position, 1.0);
    vec3 skinned_normal = safe_normal(mat3(skin), normal);
    // Tangents lie in the surface: they move like positions, not normals.
    vec3 skinned_tangent = mat3(skin) * a_tangent.xyz;
#else
    mat4 skin = bone(slot_ids.x) * slot_weights.x
              + bone(slot_ids.y) * slot_weights.y
              + bone(slot_ids.z) * slot_weights.z
              + bone(slot_ids.w) * slot_weights.w;
#if SKV_INFLUENCE_SLOTS > 4
    skin += bone(slot_ids_1.x) * slot_weights_1.x
          + bone(slot_ids_1.y) * slot_weights_1.y
          + bone(slot_ids_1.z) * slot_weights_1.z
          + bone(slot_ids_1.w) * slot_weights_1.w;
#endif
    vec4 skinned = skin * vec4(position, 1.0);
    // Inverse transpose (up to a factor): stays right under non-uniform scale.
    vec3 skinned_normal = safe_normal(mat3(skin), normal);
    // Tangents lie in the surface: they move like positions, not normals.
    vec3 skinned_tangent = mat3(skin) * a_tangent.xyz;
#endif
#if SKV_INSTANCED
    vec3 grid = vec3(float(gl_InstanceID % u_grid_columns), 0.0, float(gl_InstanceID / u_grid_columns));
    vec4 view_position = u_view * (u_model * skinned + vec4(grid * u_grid_spacing, 0.0));
#else
    mat4 model_view = u_view * u_model;
    vec4 view_position = model_view * skinned;
#endif

    v_skinned_position = skinned.xyz;
    v_skinned_normal = normalize(skinned_normal);
    v_view_position = view_position.xyz;
    v_view_normal = u_view_normal * skinned_normal;
    float tangent_length = length(skinned_tangent);
    v_skinned_tangent = tangent_length > 1e-20 ? skinned_tangent / tangent_length : vec3(0.0);
    v_view_tangent = vec4(mat3(u_view) * mat3(u_model) * v_skinned_tangent, a_tangent.w);
    v_uv = a_uv;
    v_value = 0.0;
#if SKV_INFLUENCE_LISTS
    // The views read what is blended: the vertex's whole list.
    if (u_shade_mode == SKV_SHADE_WEIGHTS || u_shade_mode == SKV_SHADE_INFLUENCES) {
        ivec2 list = influence_list();
        for (int i = list.x; i < list.y; i++) {
            vec2 pair = texelFetch(u_influence_pairs, i).rg;
            if (u_shade_mode == SKV_SHADE_INFLUENCES) v_value += pair.y > 1e-6 ? 1.0 : 0.0;
            else if (int(pair.x) == u_selected_bone) v_value += pair.y;
        }
    }
#else
    if (u_shade_mode == SKV_SHADE_WEIGHTS) {
        v_value = (slot_ids.x == u_selected_bone ? slot_weights.x : 0.0) + (slot_ids.y == u_selected_bone ? slot_weights.y : 0.0)
                + (slot_ids.z == u_selected_bone ? slot_weights.z : 0.0) + (slot_ids.w == u_selected_bone ? slot_weights.w : 0.0);
#if SKV_INFLUENCE_SLOTS > 4
        v_value += (slot_ids_1.x == u_selected_bone ? slot_weights_1.x : 0.0) + (slot_ids_1.y == u_selected_bone ? slot_weights_1.y : 0.0)
                 + (slot_ids_1.z == u_selected_bone ? slot_weights_1.z : 0.0) + (slot_ids_1.w == u_selected_bone ? slot_weights_1.w : 0.0);
#endif
    } else if (u_shade_mode == SKV_SHADE_INFLUENCES) {
        vec4 used = step(vec4(1e-6), slot_weights);
        v_value = dot(used, vec4(1.0));
#if SKV_INFLUENCE_SLOTS > 4
        v_value += dot(step(vec4(1e-6), slot_weights_1), vec4(1.0));
#endif
    }
#endif
    gl_Position = u_projection * view_position;
}
