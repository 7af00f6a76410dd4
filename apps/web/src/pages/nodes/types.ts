import type { Schemas } from '../../api.js';

export type Node = Schemas['NodeDto'];
export type Enrolment = { name: string; enrolment: Schemas['EnrolmentDto'] };
