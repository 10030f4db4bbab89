/**
 * One hook on every AWS SDK client the adapters create, so a runtime can instrument them all
 * (the Lambda functions wrap each in Powertools' tracer: X-Ray subsegments per call). The
 * embedded runtime and tests leave it as it is.
 */
type Instrument = <T extends object>(client: T) => T;

let instrument: Instrument = (client) => client;

/** Sets how new clients are instrumented (before the services are built). */
export function instrumentAwsClients(next: Instrument): void {
  instrument = next;
}

/** A client as the runtime wants it instrumented. */
export function awsClient<T extends object>(client: T): T {
  return instrument(client);
}
