/**
 * The account views both listeners answer (the caller's own on the public one, any user's on the admin
 * one), as named components of the OpenAPI documents (documentation only: see http/operation-docs.ts).
 */
import { named } from "../http/openapi-components.ts";
import { DeletionReportModel, UserExportModel } from "./model.ts";

export const DeletionReport = named("DeletionReport", DeletionReportModel);
export const UserExport = named("UserExport", UserExportModel);
