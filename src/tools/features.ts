import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { featureEntity, featureSnapshot, listFeatures, setFeature } from '../services/features.ts';

const FEATURE_KEY_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

const FeatureOut = z.object({ key: z.string(), enabled: z.boolean(), description: z.string().nullable(), updatedAt: timestamp() });

export const featureTools = [
  defineTool({
    name: 'features.list',
    title: 'List feature flags',
    description: 'Lists every named feature flag, by key.',
    scope: 'features:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.array(FeatureOut),
    handler: async (_input, ctx) => (await listFeatures(ctx.db)).map(featureSnapshot),
  }),

  defineTool({
    name: 'features.set',
    title: 'Set a feature flag',
    description: 'Creates the flag or changes it: enabled is required; description is kept when omitted (null clears it).',
    scope: 'features:write',
    kind: 'write',
    idempotent: true,
    errors: [],
    audit: { reversible: [featureEntity] },
    input: z.strictObject({
      key: z.string().min(1).max(100).regex(FEATURE_KEY_PATTERN, 'must match ^[a-z0-9][a-z0-9_.-]*$'),
      enabled: z.boolean(),
      description: text({ max: 500 }).nullable().optional(),
    }),
    output: FeatureOut,
    async handler(input, ctx) {
      const { before, after } = await setFeature(ctx.db, input);
      ctx.audit({ entityType: 'feature', entityId: after.key, before: before && featureSnapshot(before), after: featureSnapshot(after) });
      return featureSnapshot(after);
    },
  }),
];
