/** The one error body every failing HTTP response carries. `field` is "" when no field is at fault. */
export interface ApiErrorBody {
  error: string;
  field: string;
}
