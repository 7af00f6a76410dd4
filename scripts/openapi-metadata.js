// Generates apps/controller/src/docs/openapi-metadata.ts: the Nest CLI swagger plugin's reading of
// the request DTOs (property types, required, nullable, enums of literal unions, JSDoc as
// descriptions). The build is plain SWC, which runs no TypeScript transformer, so the plugin runs
// here in its read-only mode (as `nest build` does for its SWC builder) and the panel loads the
// result with SwaggerModule.loadPluginMetadata (apps/controller/src/docs/dto-metadata.ts).
// Validation rules are not taken from here: see dto-metadata.ts.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

const root = resolve(import.meta.dirname, '..');
const source = join(root, 'apps/controller/src');
const outputDir = join(source, 'docs');
/** The files whose exported classes are request DTOs (bodies and queries). */
const DTO_SUFFIX = '.dto.ts';

function dtoFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return dtoFiles(path);
    return name.endsWith(DTO_SUFFIX) && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  },
});
const program = ts.createProgram({ rootNames: dtoFiles(source), options: config.options });
new PluginMetadataGenerator().generate({
  visitors: [
    new ReadonlyVisitor({
      pathToSource: outputDir,
      dtoFileNameSuffix: [DTO_SUFFIX],
      controllerFileNameSuffix: [],
      introspectComments: true,
      // Rules come from class-validator's own metadata at run time (dto-metadata.ts): the plugin
      // can read only literal arguments in read-only mode, not CLIENT_LIMITS.x or shared rules.
      classValidatorShim: false,
      esmCompatible: true,
    }),
  ],
  outputDir,
  filename: 'openapi-metadata.ts',
  tsProgramRef: program,
});
