/* materials.c - materials: glTF's metallic-roughness as Assimp hands it
 * over, and the Phong-style formats' colours mapped onto it, one
 * skv_material each; texture slots resolved through textures.c. */
#include "private/import_internal.h"

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Assimp's aiGetMaterialFloat / aiGetMaterialInteger are C99 inline
 * functions without an external definition: an unoptimised build calls a
 * symbol the library lacks. These say the same with the array calls. */
static enum aiReturn material_float(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index,
                                    ai_real *out)
{
    return aiGetMaterialFloatArray(mat, key, type, index, out, NULL);
}

static enum aiReturn material_int(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index, int *out)
{
    return aiGetMaterialIntegerArray(mat, key, type, index, out, NULL);
}

/* Colours a Phong-style file gives (FBX, Collada, .X ...) are meant as
 * sRGB, as other viewers read them; glTF's factors are linear already. */
static float srgb_to_linear(float c)
{
    if (!(c > 0.0f)) return 0.0f;
    if (c > 1.0f) return c; /* HDR factors: left as they are */
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* One texture slot of a material: the first of `types` the material
 * names (Assimp files the same glTF map under different types in
 * different versions). Keeps the reference for --list; warns when it
 * cannot be loaded (the slot then stays -1 and the factor alone counts). */
static skv_result material_texture(importer *im, const struct aiMaterial *src, skv_material *mat, int slot,
                                   const enum aiTextureType *types, int type_count)
{
    struct aiString path;
    int found = 0;
    for (int k = 0; k < type_count && !found; k++)
        found = aiGetMaterialTexture(src, types[k], 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS;
    if (!found || path.length == 0) return SKV_OK; /* an empty name (MD5's shader "") is no texture */
    char ref[AI_MAXLEN + 1];
    snprintf(ref, sizeof ref, "%.*s", (int)path.length, path.data);
    mat->texture_paths[slot] = strdup(ref);
    if (!mat->texture_paths[slot]) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    im->texture_refused[0] = '\0';
    mat->textures[slot] = resolve_texture(im, ref);
    /* A colour map's absence shows the material colour; a data map's, the factors alone. */
    const char *instead = slot == SKV_TEX_BASE_COLOR ? "using the material colour" : "drawn without it";
    if (mat->textures[slot] < 0 && im->texture_refused[0])
        model_warn(im->model, "texture '%s' of material '%s' not loaded: %s; %s", ref, mat->name, im->texture_refused,
                   instead);
    else if (mat->textures[slot] < 0)
        model_warn(im->model, "texture '%s' of material '%s' could not be loaded; %s", ref, mat->name, instead);
    return SKV_OK;
}

/* The defaults of a material the file does not describe: light grey
 * (0.7 in sRGB), not metal, fairly rough, opaque, two-sided. */
static void material_defaults(skv_material *mat)
{
    memset(mat, 0, sizeof *mat);
    mat->texture = -1;
    for (int k = 0; k < SKV_TEX_SLOTS; k++) mat->textures[k] = -1;
    mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = srgb_to_linear(0.7f);
    mat->diffuse[3] = 1.0f;
    mat->shading = SKV_MATERIAL_PHONG;
    mat->roughness = 0.6f;
    mat->normal_scale = 1.0f;
    mat->occlusion_strength = 1.0f;
    mat->alpha_cutoff = 0.5f;
    mat->double_sided = 1;
}

/* glTF metallic-roughness, as Assimp hands it over. */
static skv_result read_pbr_material(importer *im, const struct aiMaterial *src, skv_material *mat)
{
    mat->shading = SKV_MATERIAL_PBR;
    struct aiColor4D color;
    if (aiGetMaterialColor(src, AI_MATKEY_BASE_COLOR, &color) == aiReturn_SUCCESS ||
        aiGetMaterialColor(src, AI_MATKEY_COLOR_DIFFUSE, &color) == aiReturn_SUCCESS) {
        mat->diffuse[0] = color.r, mat->diffuse[1] = color.g, mat->diffuse[2] = color.b, mat->diffuse[3] = color.a;
    } else {
        mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = mat->diffuse[3] = 1.0f; /* glTF's default */
    }
    ai_real value;
    mat->metallic = material_float(src, AI_MATKEY_METALLIC_FACTOR, &value) == aiReturn_SUCCESS ? (float)value : 1.0f;
    mat->roughness = material_float(src, AI_MATKEY_ROUGHNESS_FACTOR, &value) == aiReturn_SUCCESS ? (float)value : 1.0f;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_EMISSIVE, &color) == aiReturn_SUCCESS)
        mat->emissive[0] = color.r, mat->emissive[1] = color.g, mat->emissive[2] = color.b;
    if (material_float(src, "$tex.scale", aiTextureType_NORMALS, 0, &value) == aiReturn_SUCCESS)
        mat->normal_scale = (float)value;
    if (material_float(src, "$tex.strength", aiTextureType_LIGHTMAP, 0, &value) == aiReturn_SUCCESS)
        mat->occlusion_strength = (float)value;
    struct aiString mode;
    if (aiGetMaterialString(src, "$mat.gltf.alphaMode", 0, 0, &mode) == aiReturn_SUCCESS) {
        if (strcmp(mode.data, "MASK") == 0) mat->alpha_mode = SKV_ALPHA_MASK;
        else if (strcmp(mode.data, "BLEND") == 0) mat->alpha_mode = SKV_ALPHA_BLEND;
    }
    if (material_float(src, "$mat.gltf.alphaCutoff", 0, 0, &value) == aiReturn_SUCCESS) mat->alpha_cutoff = (float)value;
    int two_sided = 0;
    mat->double_sided = material_int(src, AI_MATKEY_TWOSIDED, &two_sided) == aiReturn_SUCCESS && two_sided;
    /* Assimp 5.2 files glTF's metallicRoughnessTexture as UNKNOWN; later
     * versions also as METALNESS / DIFFUSE_ROUGHNESS (the same image). */
    static const enum aiTextureType base[] = {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE};
    static const enum aiTextureType metal_rough[] = {aiTextureType_UNKNOWN, aiTextureType_METALNESS,
                                                     aiTextureType_DIFFUSE_ROUGHNESS};
    static const enum aiTextureType normal[] = {aiTextureType_NORMALS};
    static const enum aiTextureType occlusion[] = {aiTextureType_LIGHTMAP, aiTextureType_AMBIENT_OCCLUSION};
    static const enum aiTextureType emissive[] = {aiTextureType_EMISSIVE};
    skv_result r = material_texture(im, src, mat, SKV_TEX_BASE_COLOR, base, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_METAL_ROUGH, metal_rough, 3);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_NORMAL, normal, 1);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_OCCLUSION, occlusion, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_EMISSIVE, emissive, 1);
    return r;
}

/* Phong / Lambert (FBX, Collada, MD5, .X, ...) onto metal-rough: the
 * diffuse colour (sRGB) is the base colour, or white under a diffuse
 * texture (these formats draw the texture instead of the colour); no
 * metal; the Blinn-Phong exponent s becomes the roughness whose GGX
 * lobe is about as wide, sqrt(sqrt(2 / (s + 2))); opacity < 1 blends. */
static skv_result read_phong_material(importer *im, const struct aiMaterial *src, skv_material *mat)
{
    static const enum aiTextureType base[] = {aiTextureType_DIFFUSE, aiTextureType_BASE_COLOR};
    static const enum aiTextureType normal[] = {aiTextureType_NORMALS};
    static const enum aiTextureType emissive[] = {aiTextureType_EMISSIVE};
    skv_result r = material_texture(im, src, mat, SKV_TEX_BASE_COLOR, base, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_NORMAL, normal, 1);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_EMISSIVE, emissive, 1);
    if (r != SKV_OK) return r;
    struct aiColor4D color;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_DIFFUSE, &color) == aiReturn_SUCCESS ||
        aiGetMaterialColor(src, AI_MATKEY_BASE_COLOR, &color) == aiReturn_SUCCESS) {
        mat->diffuse[0] = srgb_to_linear(color.r), mat->diffuse[1] = srgb_to_linear(color.g);
        mat->diffuse[2] = srgb_to_linear(color.b);
        mat->diffuse[3] = color.a >= 0.0f && color.a <= 1.0f ? color.a : 1.0f;
    }
    if (mat->textures[SKV_TEX_BASE_COLOR] >= 0) mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = 1.0f;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_EMISSIVE, &color) == aiReturn_SUCCESS)
        for (int k = 0; k < 3; k++) mat->emissive[k] = srgb_to_linear((&color.r)[k]);
    ai_real value;
    if (material_float(src, AI_MATKEY_SHININESS, &value) == aiReturn_SUCCESS && value >= 0.0f && isfinite(value))
        mat->roughness = sqrtf(sqrtf(2.0f / ((float)value + 2.0f)));
    /* Opacity 0 is nearly always an exporter's mistake (FBX transparency
     * factors the wrong way round): drawn opaque, with a warning. */
    if (material_float(src, AI_MATKEY_OPACITY, &value) == aiReturn_SUCCESS && isfinite(value) && value < 1.0f) {
        if (value > 0.0f) mat->diffuse[3] *= (float)value;
        else model_warn(im->model, "material '%s' has opacity 0; drawn opaque", mat->name);
    }
    if (mat->diffuse[3] < 1.0f) mat->alpha_mode = SKV_ALPHA_BLEND;
    return SKV_OK;
}

skv_result convert_materials(importer *im)
{
    const struct aiScene *scene = im->scene;
    skv_model *model = im->model;
    int count = scene->mNumMaterials > 0 ? (int)scene->mNumMaterials : 1;
    model->materials = calloc((size_t)count, sizeof *model->materials);
    if (!model->materials) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    model->material_count = count;
    for (int i = 0; i < count; i++) {
        skv_material *mat = &model->materials[i];
        material_defaults(mat);
        if (i >= (int)scene->mNumMaterials) {
            mat->name = strdup("default");
            if (!mat->name) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            continue;
        }
        const struct aiMaterial *src = scene->mMaterials[i];
        struct aiString name;
        mat->name = aiGetMaterialString(src, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS
                        ? dup_name(&name, "material %d", i)
                        : dup_name(NULL, "material %d", i);
        /* Assimp's glTF importer marks its materials PBR_BRDF. */
        int shading = 0;
        int pbr = material_int(src, AI_MATKEY_SHADING_MODEL, &shading) == aiReturn_SUCCESS &&
                  shading == aiShadingMode_PBR_BRDF;
        skv_result r = pbr ? read_pbr_material(im, src, mat) : read_phong_material(im, src, mat);
        if (r != SKV_OK) return r;
        mat->texture = mat->textures[SKV_TEX_BASE_COLOR];
        int finite = 1; /* the guarded import's block refuses non-finite floats */
        for (int k = 0; k < 4; k++)
            if (!isfinite(mat->diffuse[k])) mat->diffuse[k] = 1.0f, finite = 0;
        if (!finite) model_warn(im->model, "material '%s': its colour is NaN/Inf; drawn white", mat->name);
        mat->metallic = isfinite(mat->metallic) ? fminf(fmaxf(mat->metallic, 0.0f), 1.0f) : 0.0f;
        mat->roughness = isfinite(mat->roughness) ? fminf(fmaxf(mat->roughness, 0.0f), 1.0f) : 1.0f;
        for (int k = 0; k < 3; k++)
            if (!isfinite(mat->emissive[k]) || mat->emissive[k] < 0.0f) mat->emissive[k] = 0.0f;
        if (!isfinite(mat->alpha_cutoff)) mat->alpha_cutoff = 0.5f;
        if (!isfinite(mat->normal_scale)) mat->normal_scale = 1.0f;
        if (!isfinite(mat->occlusion_strength)) mat->occlusion_strength = 1.0f;
    }
    return SKV_OK;
}
