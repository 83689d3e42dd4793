// The reviewers of a deployment: those assigned while it awaits review, and those who may review it.
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';
import { conflict, missingReference } from '../errors.js';
import { isObject } from '../schema.js';
import { collaborator, numbers, sameId } from './references.js';

/** The deployment states in which reviewers are assigned. */
const REVIEWABLE = new Set(['pending', 'pending_review']);

export const deploymentReviewersHandlers = {
  /**
   * `assign_deployment_reviewers`: the reviewers become those of `reviewer_ids` (collaborators, each must
   * exist), while the deployment is `pending` or `pending_review`; a reviewer kept keeps its review, a new
   * one gets a `pending` review, and the reviews of those left out are dropped.
   */
  'deployments.assign_reviewers': async (workspace, op, { params, body }) => {
    const deployment = await workspace.itemOf(op, params);
    if (!REVIEWABLE.has(String(deployment.value.state)))
      throw conflict(
        op.conflict,
        `deployment ${deployment.id} is ${deployment.value.state}: reviewers are assigned while it is pending or pending_review`,
        'state',
        `is ${deployment.value.state}`,
      );
    const held = (Array.isArray(deployment.value.reviews) ? deployment.value.reviews : []).filter(isObject);
    const reviews: JsonObject[] = [];
    for (const id of numbers(isObject(body) ? body.reviewer_ids : undefined)) {
      const member = await workspace.store.get('member', String(id));
      if (!member) throw missingReference(op.operation, 'reviewer_ids', 'collaborator', id);
      const kept = held.find((review) => isObject(review.reviewer) && sameId(review.reviewer.id, member.id));
      reviews.push(kept ?? { reviewer: collaborator(member), status: 'pending', comment: null });
    }
    return { item: await workspace.update(op, deployment, { reviews }) };
  },

  /** Every workspace collaborator except the deployment's authors (nobody reviews their own changes). */
  'deployments.eligible_reviewers': async (workspace, op, { params }) => {
    const deployment = await workspace.itemOf(op, params);
    const authors = Array.isArray(deployment.value.authors) ? deployment.value.authors : [];
    const authorIds = new Set(authors.map((author) => String(isObject(author) ? author.id : author)));
    const members = (await workspace.store.list('member')).filter((member) => !authorIds.has(member.id));
    return { body: { data: members.map((member) => collaborator(member)) } };
  },
} satisfies Partial<HandlerRegistry>;
