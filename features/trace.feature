@trace @destructive
Feature: Runs Nextflow reports
  Nextflow, run with -with-tower, reports its run to the service: POST
  /trace/create announces it and answers its workflowId, PUT
  /trace/{workflowId}/begin reports it started, .../progress reports its
  tasks (each by its taskId, up to 100 a call) with Nextflow's own
  counters, .../heartbeat keeps it alive after a minute without task
  events, and .../complete reports how it ended, with the resource usage
  of each process. The run is then read like any other: described, listed,
  its progress, tasks and metrics. These scenarios make the calls of a
  two-task run of nextflow-io/hello with bodies that follow the schema;
  Nextflow's own bodies (nulls, numbers where the schema says text, no
  workflow.submit) are replayed by the Go tests (internal/nftrace), since
  the schema refuses them where the service does not. A real service
  stores reports in the background: its reads are retried for a minute.

  Background:
    Given a valid access token
    When I POST "/trace/create" with JSON:
      """
      {"sessionId": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b", "runName": "conformance-{unique}",
       "projectName": "nextflow-io/hello", "repository": "https://github.com/nextflow-io/hello",
       "instant": 1772366400000}
      """
    Then the response status is 200
    And the response field "workflowId" is a non-empty string
    And I save the response field "workflowId" as "workflowId"
    When I PUT "/trace/{workflowId}/begin" with JSON:
      """
      {"workflow": {"id": "{workflowId}", "runName": "conformance-{unique}", "sessionId": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
                    "projectName": "nextflow-io/hello", "repository": "https://github.com/nextflow-io/hello",
                    "revision": "master", "commitId": "7588c46ffefb4e3c06d4ab32c745c4d5e56cdad8",
                    "commandLine": "nextflow run nextflow-io/hello -with-tower", "scriptName": "main.nf",
                    "userName": "conformance", "workDir": "/tmp/conformance/work", "launchDir": "/tmp/conformance",
                    "profile": "standard", "submit": "2026-03-01T12:00:00Z", "start": "2026-03-01T12:00:00Z",
                    "resume": false, "success": false, "params": {},
                    "configText": "process {\n  executor = 'local'\n}\n",
                    "nextflow": {"version": "24.10.4", "build": "5934", "timestamp": "2024-12-09T18:04:22Z"},
                    "manifest": {"name": "nextflow-io/hello", "mainScript": "main.nf", "defaultBranch": "master"}},
       "processNames": ["sayHello"], "towerLaunch": false, "instant": 1772366400600}
      """
    Then the response status is 200
    And the response field "status" is "OK"

  @contract
  Scenario: A run Nextflow reports is kept and shown like any other
    When I GET "/workflow/{workflowId}"
    Then the response status is 200
    And the response field "workflow.id" is "{workflowId}"
    And the response field "workflow.status" is "RUNNING"
    And the response field "workflow.runName" is "conformance-{unique}"
    And the response field "workflow.commitId" is "7588c46ffefb4e3c06d4ab32c745c4d5e56cdad8"
    When I PUT "/trace/{workflowId}/progress" with JSON:
      """
      {"tasks": [
         {"taskId": 1, "status": "RUNNING", "hash": "35/019919", "name": "sayHello (1)", "process": "sayHello",
          "submit": "2026-03-01T12:00:01Z", "start": "2026-03-01T12:00:01Z", "cpus": 1, "attempt": 1,
          "nativeId": "40212", "executor": "local", "workdir": "/tmp/conformance/work/35/019919"},
         {"taskId": 2, "status": "SUBMITTED", "hash": "6a/033232", "name": "sayHello (2)", "process": "sayHello",
          "submit": "2026-03-01T12:00:01Z", "cpus": 1, "attempt": 1, "executor": "local",
          "workdir": "/tmp/conformance/work/6a/033232"}],
       "progress": {"pending": 0, "submitted": 1, "running": 1, "succeeded": 0, "failed": 0, "cached": 0,
                    "processes": [{"index": 1, "name": "sayHello", "submitted": 1, "running": 1}]},
       "containers": [], "instant": 1772366401700}
      """
    Then the response status is 200
    And the response field "status" is "OK"
    When I GET "/workflow/{workflowId}/progress" until the response field "progress.workflowProgress.running" is "1"
    Then the response field "progress.workflowProgress.submitted" is "1"
    And the response field "progress.processesProgress.0.process" is "sayHello"
    When I PUT "/trace/{workflowId}/heartbeat" with JSON:
      """
      {"progress": {"submitted": 1, "running": 1}, "instant": 1772366462000}
      """
    Then the response status is 200
    When I PUT "/trace/{workflowId}/progress" with JSON:
      """
      {"tasks": [
         {"taskId": 2, "status": "COMPLETED", "hash": "6a/033232", "name": "sayHello (2)", "process": "sayHello",
          "submit": "2026-03-01T12:00:01Z", "start": "2026-03-01T12:00:02Z", "complete": "2026-03-01T12:01:05Z",
          "exit": 0, "realtime": 63000, "cpus": 1, "attempt": 1, "executor": "local", "nativeId": "40213"},
         {"taskId": 1, "status": "COMPLETED", "hash": "35/019919", "name": "sayHello (1)", "process": "sayHello",
          "submit": "2026-03-01T12:00:01Z", "start": "2026-03-01T12:00:01Z", "complete": "2026-03-01T12:01:04Z",
          "exit": 0, "realtime": 63000, "cpus": 1, "attempt": 1, "executor": "local", "nativeId": "40212"}],
       "progress": {"succeeded": 2, "processes": [{"index": 1, "name": "sayHello", "succeeded": 2, "terminated": true}]},
       "containers": [], "instant": 1772366466000}
      """
    Then the response status is 200
    When I GET "/workflow/{workflowId}/tasks" until the response field "tasks.1.task.status" is "COMPLETED"
    Then the response field "tasks" is a list of 2 items
    And the response field "tasks.0.task.status" is "COMPLETED"
    When I GET "/workflow/{workflowId}/task/2"
    Then the response status is 200
    And the response field "task.name" is "sayHello (2)"
    And the response field "task.nativeId" is "40213"
    When I PUT "/trace/{workflowId}/complete" with JSON:
      """
      {"workflow": {"id": "{workflowId}", "runName": "conformance-{unique}", "sessionId": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
                    "projectName": "nextflow-io/hello", "commandLine": "nextflow run nextflow-io/hello -with-tower",
                    "userName": "conformance", "workDir": "/tmp/conformance/work", "submit": "2026-03-01T12:00:00Z",
                    "start": "2026-03-01T12:00:00Z", "complete": "2026-03-01T12:01:06Z", "duration": 66000,
                    "success": true, "exitStatus": 0},
       "metrics": [{"process": "sayHello",
                    "time": {"mean": 63000, "min": 63000, "q1": 63000, "q2": 63000, "q3": 63000, "max": 63000,
                             "minLabel": "sayHello (1)", "maxLabel": "sayHello (2)", "q1Label": "sayHello (1)",
                             "q2Label": "sayHello (1)", "q3Label": "sayHello (1)"}}],
       "progress": {"succeeded": 2}, "instant": 1772366466300}
      """
    Then the response status is 200
    When I GET "/workflow/{workflowId}" until the response field "workflow.status" is "SUCCEEDED"
    Then the response field "workflow.exitStatus" is "0"
    And the response field "workflow.complete" is "2026-03-01T12:01:06Z"
    And every timestamp in the response is in the form YYYY-MM-DDTHH:MM:SSZ
    When I GET "/workflow/{workflowId}/metrics" until the response field "metrics.0.process" is "sayHello"
    Then the response field "metrics.0.time.minLabel" is "sayHello (1)"
    When I GET "/workflow?search=conformance-{unique}"
    Then the response status is 200
    And the response field "workflows.0.workflow.id" is "{workflowId}"

  @contract
  Scenario: A run that reports a failure ends FAILED
    When I PUT "/trace/{workflowId}/complete" with JSON:
      """
      {"workflow": {"id": "{workflowId}", "runName": "conformance-{unique}", "sessionId": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
                    "projectName": "nextflow-io/hello", "commandLine": "nextflow run nextflow-io/hello -with-tower",
                    "userName": "conformance", "workDir": "/tmp/conformance/work", "submit": "2026-03-01T12:00:00Z",
                    "start": "2026-03-01T12:00:00Z", "complete": "2026-03-01T12:00:30Z", "duration": 30000,
                    "success": false, "exitStatus": 1,
                    "errorMessage": "Process `sayHello (1)` terminated with an error exit status (1)"},
       "metrics": [], "progress": {"failed": 1}}
      """
    Then the response status is 200
    When I GET "/workflow/{workflowId}" until the response field "workflow.status" is "FAILED"
    Then the response field "workflow.errorMessage" is "Process `sayHello (1)` terminated with an error exit status (1)"

  @contract
  Scenario: Nextflow reports on a run the service launched under the run's own id
    When I POST "/workflow/launch" with JSON:
      """
      {"launch": {"pipeline": "https://github.com/nextflow-io/hello", "runName": "launched-{unique}"}}
      """
    Then the response status is 200
    And I save the response field "workflowId" as "launched"
    When I POST "/trace/create" with JSON:
      """
      {"sessionId": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "runName": "launched-{unique}",
       "projectName": "nextflow-io/hello", "repository": "https://github.com/nextflow-io/hello",
       "workflowId": "{launched}", "instant": 1772366500000}
      """
    Then the response status is 200
    And the response field "workflowId" is "{launched}"
    When I PUT "/trace/{launched}/begin" with JSON:
      """
      {"workflow": {"id": "{launched}", "runName": "launched-{unique}", "sessionId": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                    "projectName": "nextflow-io/hello", "commandLine": "nextflow run nextflow-io/hello -with-tower",
                    "userName": "conformance", "workDir": "/tmp/conformance/work", "submit": "2026-03-01T12:00:00Z",
                    "start": "2026-03-01T12:00:10Z"},
       "processNames": ["sayHello"], "towerLaunch": true}
      """
    Then the response status is 200
    When I GET "/workflow/{launched}" until the response field "workflow.status" is "RUNNING"
    Then the response field "workflow.sessionId" is "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

  @fake-only @profile
  Scenario: A run whose client goes silent reads as UNKNOWN until it reports again
    When the run's client stays silent for longer than the profile's workflows.unknown_after
    And I GET "/workflow/{workflowId}"
    Then the response field "workflow.status" is "UNKNOWN"
    When I PUT "/trace/{workflowId}/heartbeat" with JSON:
      """
      {"progress": {"running": 0}}
      """
    Then the response status is 200
    When I GET "/workflow/{workflowId}"
    Then the response field "workflow.status" is "RUNNING"
