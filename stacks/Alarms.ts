import type { Alarm } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import type { StackContext } from "sst/constructs";

/**
 * The SNS topic every alarm of the app notifies (subscribe an address or a chat hook to it).
 * Its own stack, created before the others, so any stack can send its alarms here.
 */
export function Alarms({ stack, app }: StackContext) {
  const topic = new Topic(stack, "AlarmTopic", { displayName: `trading-platform ${app.stage} alarms` });
  const action = new SnsAction(topic);
  stack.addOutputs({ AlarmTopicArn: topic.topicArn });
  return {
    topic,
    /** Sends the alarm (and its return to OK) to the topic. */
    notify(alarm: Alarm) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    },
  };
}
