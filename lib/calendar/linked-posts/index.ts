/**
 * Venues and organizers: operations (shared by their routes and by inline
 * creation on events), validation rules and argument tables.
 */
export { LINKED_KINDS, linkedKind, type LinkedKindConfig, type LinkedPostKind } from "./kinds";
export {
  createOrReuseLinkedPost,
  createLinkedPost,
  updateLinkedPost,
  trashLinkedPost,
  findDuplicate,
  lockLinkedPostNames,
  linkRelation,
  scaleStatus,
  type CreateResult,
  type LinkedPostContext,
  type LinkedPostWriteOptions,
} from "./operations";
export { validateLinkedPostData, findDataProblem, isAbsoluteUrl, isEmailAddress, type DataProblem } from "./validate";
export { checkImageValue, planImage, applyImagePlan, type ImagePlan } from "./image";
