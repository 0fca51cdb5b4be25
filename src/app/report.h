/* report.h - --list: what a loaded model holds (meshes and their morph
 * targets, nodes, bones, clips and their notes, the importer's warnings),
 * for people (report_list) or for tools (report_list_json: one JSON
 * object; bones carry their parent bone, the nearest ancestor node that
 * is a bone, -1 for none). Names from the file are escaped for where they
 * go (text.h). */
#ifndef SKV_REPORT_H
#define SKV_REPORT_H

#include <stdio.h>

#include "model.h"

void report_list(FILE *out, const skv_model *model);
void report_list_json(FILE *out, const skv_model *model);

#endif
