/**
 * The one query model used by every library view, the command line and exports.
 * (Archive helper: extend freely, keep these export names: libraryQuerySchema, LibraryQuery.)
 */
import { z } from 'zod';

export const labelConditionSchema = z.object({
  family: z.string().min(1).max(40),
  field: z.string().min(1).max(40),
  op: z.enum(['eq', 'neq', 'gte', 'lte', 'gt', 'lt']),
  value: z.union([z.string(), z.number(), z.boolean()]),
});
export type LabelCondition = z.infer<typeof labelConditionSchema>;

export const engagementRangeSchema = z.object({
  field: z.enum(['views', 'likes', 'comments', 'shares', 'saves']),
  min: z.number().optional(),
  max: z.number().optional(),
});

export const librarySortSchema = z.object({
  field: z.string().min(1).max(80), // published_at | likes | views | comments | shares | relevance | first_seen_at | author | label:<family>.<field>
  dir: z.enum(['asc', 'desc']),
});

export const libraryQuerySchema = z.object({
  platforms: z.array(z.string()).optional(),
  kinds: z.array(z.string()).optional(),
  author: z.string().max(200).optional(),
  since: z.union([z.string(), z.number()]).optional(),
  until: z.union([z.string(), z.number()]).optional(),
  text: z.string().max(500).optional(),
  engagement: z.array(engagementRangeSchema).optional(),
  labels: z.array(labelConditionSchema).optional(),
  relevanceMin: z.number().min(0).max(1).optional(),
  source: z.object({ type: z.enum(['walk', 'call', 'source', 'watchlist']), id: z.string() }).optional(),
  tags: z.array(z.string()).optional(),
  hasNote: z.boolean().optional(),
  sort: librarySortSchema.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  after: z.string().optional(),
});
export type LibraryQuery = z.infer<typeof libraryQuerySchema>;
