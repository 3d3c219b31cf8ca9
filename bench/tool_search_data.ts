/**
 * The tool-search benchmark's data: 300 MCP tool definitions generated deterministically from a
 * catalogue of products (source hosting, trackers, chat, clouds, databases, billing…) — each product's
 * resources crossed with the verbs they take, descriptions and parameters from fixed templates, the
 * way OpenAPI-generated MCP servers describe themselves — split over two servers; and the 60 queries
 * a model would send to tool_search, each with the tools that answer it. Shared by the bench, the
 * recall test and the MCP fixture server that serves these tools. Pure data, any thread.
 */

export interface GenTool {
  /** The server's own name for the tool (it joins the registry as mcp__<server>__<name>). */
  name: string;
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, { type: string; description: string }>;
    required: string[];
  };
  readOnly: boolean;
}

type Field = readonly [name: string, type: string, description: string];
/** A verb: one of the standard five (templated) or [verb, description, extra parameters, read-only]. */
type Verb = string | readonly [string, string, (readonly Field[])?, boolean?];

interface Resource {
  noun: string;
  plural: string;
  /** Where a resource lives, as parameters every call names (owner and repo, project key…). */
  scope: readonly Field[];
  id: Field;
  /** What create takes (the first is required) and update may change. */
  fields: readonly Field[];
  verbs: readonly Verb[];
}

interface Product {
  prefix: string;
  product: string;
  server: 'devhub' | 'opscloud';
  resources: readonly Resource[];
}

const S = 'string';
const I = 'integer';
const B = 'boolean';
const A = 'array';
const CRUD = ['list', 'get', 'create', 'update', 'delete'] as const;

const repo: Field[] = [
  ['owner', S, 'Account or organization that owns the repository'],
  ['repo', S, 'Repository name'],
];
const jiraProject: Field[] = [['project_key', S, 'Project key, e.g. ENG']];
const channel: Field = ['channel_id', S, 'Channel ID (C…) or name with #'];
const region: Field[] = [['region', S, 'Cloud region, e.g. eu-west-1']];
const k8s: Field[] = [
  ['cluster', S, 'Cluster name from the kubeconfig'],
  ['namespace', S, 'Namespace (default: default)'],
];
const db: Field[] = [['database', S, 'Name of the configured database connection']];

const PRODUCTS: readonly Product[] = [
  {
    prefix: 'github',
    product: 'GitHub',
    server: 'devhub',
    resources: [
      {
        noun: 'issue',
        plural: 'issues',
        scope: repo,
        id: ['issue_number', I, 'The issue number'],
        fields: [
          ['title', S, 'Issue title'],
          ['body', S, 'Issue body in Markdown'],
          ['labels', A, 'Label names to apply'],
          ['assignees', A, 'Logins to assign'],
        ],
        verbs: [
          ...CRUD.slice(0, 4),
          'search',
          [
            'close',
            'Closes an open GitHub issue, optionally as completed or not planned.',
            [['reason', S, 'completed or not_planned']],
          ],
          ['comment', 'Adds a comment to a GitHub issue or pull request.', [['body', S, 'Comment text in Markdown']]],
          ['lock', 'Locks the conversation on a GitHub issue so only collaborators can comment.', []],
        ],
      },
      {
        noun: 'pull_request',
        plural: 'pull_requests',
        scope: repo,
        id: ['pull_number', I, 'The pull request number'],
        fields: [
          ['title', S, 'Pull request title'],
          ['head', S, 'Branch with the changes'],
          ['base', S, 'Branch to merge into'],
          ['body', S, 'Description in Markdown'],
          ['draft', B, 'Open as a draft'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          'update',
          'search',
          [
            'merge',
            'Merges a GitHub pull request into its base branch.',
            [['merge_method', S, 'merge, squash or rebase']],
          ],
          [
            'review',
            'Submits a review on a pull request: approve, request changes or comment.',
            [
              ['event', S, 'APPROVE, REQUEST_CHANGES or COMMENT'],
              ['body', S, 'Review text'],
            ],
          ],
          ['get_pull_request_diff', 'Gets the unified diff of a pull request.', [], true],
          [
            'list_pull_request_files',
            'Lists the files a pull request changes, with additions and deletions.',
            [],
            true,
          ],
          [
            'request_pull_request_reviewers',
            'Requests reviews on a pull request from users or teams.',
            [['reviewers', A, 'Logins to request']],
          ],
        ],
      },
      {
        noun: 'branch',
        plural: 'branches',
        scope: repo,
        id: ['branch', S, 'Branch name'],
        fields: [['from_ref', S, 'Commit SHA or branch to start from']],
        verbs: [
          'list',
          'create',
          'delete',
          [
            'protect',
            'Sets branch protection rules: required reviews and status checks.',
            [['required_reviews', I, 'Approvals needed']],
          ],
        ],
      },
      {
        noun: 'release',
        plural: 'releases',
        scope: repo,
        id: ['release_id', I, 'Release ID'],
        fields: [
          ['tag_name', S, 'Tag to create the release from'],
          ['name', S, 'Release title'],
          ['body', S, 'Release notes in Markdown'],
        ],
        verbs: ['list', 'get', 'create', 'delete'],
      },
      {
        noun: 'file',
        plural: 'files',
        scope: repo,
        id: ['path', S, 'Path of the file in the repository'],
        fields: [
          ['content', S, 'New file content'],
          ['message', S, 'Commit message'],
          ['branch', S, 'Branch to commit to'],
        ],
        verbs: [
          'get',
          [
            'put',
            'Creates or updates a file in a repository with a commit.',
            [
              ['content', S, 'New file content'],
              ['message', S, 'Commit message'],
            ],
          ],
          'delete',
        ],
      },
      {
        noun: 'workflow_run',
        plural: 'workflow_runs',
        scope: repo,
        id: ['run_id', I, 'Workflow run ID'],
        fields: [],
        verbs: [
          'list',
          'get',
          [
            'rerun',
            'Re-runs a GitHub Actions workflow run, optionally only its failed jobs.',
            [['failed_only', B, 'Only the failed jobs']],
          ],
          ['cancel', 'Cancels a GitHub Actions workflow run in progress.', []],
          ['get_workflow_run_logs', 'Downloads the logs of a GitHub Actions workflow run.', [], true],
        ],
      },
      {
        noun: 'code',
        plural: 'code',
        scope: [],
        id: ['q', S, 'Search query'],
        fields: [],
        verbs: ['search'],
      },
    ],
  },
  {
    prefix: 'jira',
    product: 'Jira',
    server: 'devhub',
    resources: [
      {
        noun: 'issue',
        plural: 'issues',
        scope: jiraProject,
        id: ['issue_key', S, 'Issue key, e.g. ENG-123'],
        fields: [
          ['summary', S, 'One-line summary'],
          ['description', S, 'Description'],
          ['issue_type', S, 'Bug, Task, Story or Epic'],
          ['priority', S, 'Highest, High, Medium, Low'],
          ['assignee', S, 'Account ID of the assignee'],
        ],
        verbs: [
          ...CRUD,
          [
            'search',
            'Searches Jira issues with a JQL query.',
            [
              ['jql', S, 'JQL query'],
              ['max_results', I, 'Results per page'],
            ],
            true,
          ],
          [
            'transition',
            'Moves a Jira issue to another status through a workflow transition (e.g. In Progress, Done).',
            [['transition', S, 'Transition name or ID']],
          ],
          ['assign', 'Assigns a Jira issue to a user.', [['assignee', S, 'Account ID of the assignee']]],
          ['add_issue_comment', 'Adds a comment to a Jira issue.', [['body', S, 'Comment text']]],
          [
            'link',
            'Links two Jira issues (blocks, relates to, duplicates).',
            [
              ['target_key', S, 'The other issue'],
              ['link_type', S, 'Link type'],
            ],
          ],
          [
            'log_issue_work',
            'Logs time spent on a Jira issue.',
            [
              ['time_spent', S, 'e.g. 2h 30m'],
              ['comment', S, 'Work description'],
            ],
          ],
        ],
      },
      {
        noun: 'sprint',
        plural: 'sprints',
        scope: [['board_id', I, 'Board ID']],
        id: ['sprint_id', I, 'Sprint ID'],
        fields: [
          ['name', S, 'Sprint name'],
          ['goal', S, 'Sprint goal'],
          ['start_date', S, 'ISO date'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          ['start', 'Starts a future Jira sprint.', []],
          ['complete', 'Completes an active Jira sprint, moving open issues to the backlog or next sprint.', []],
          ['add_issues_to_sprint', 'Moves issues into a Jira sprint.', [['issue_keys', A, 'Issue keys to move']]],
        ],
      },
      {
        noun: 'project',
        plural: 'projects',
        scope: [],
        id: ['project_key', S, 'Project key'],
        fields: [
          ['name', S, 'Project name'],
          ['lead', S, 'Account ID of the project lead'],
        ],
        verbs: ['list', 'get', 'create'],
      },
      {
        noun: 'board',
        plural: 'boards',
        scope: [],
        id: ['board_id', I, 'Board ID'],
        fields: [],
        verbs: ['list', ['get_board_backlog', 'Gets the backlog issues of a Jira board.', [], true]],
      },
    ],
  },
  {
    prefix: 'confluence',
    product: 'Confluence',
    server: 'devhub',
    resources: [
      {
        noun: 'page',
        plural: 'pages',
        scope: [['space_key', S, 'Space key']],
        id: ['page_id', S, 'Page ID'],
        fields: [
          ['title', S, 'Page title'],
          ['body', S, 'Page content in storage format or Markdown'],
          ['parent_id', S, 'Parent page ID'],
        ],
        verbs: [
          ...CRUD,
          ['search', 'Searches Confluence pages and blog posts with CQL or text.', [['query', S, 'Text or CQL']], true],
          ['get_page_children', 'Lists the child pages of a Confluence page.', [], true],
        ],
      },
      {
        noun: 'space',
        plural: 'spaces',
        scope: [],
        id: ['space_key', S, 'Space key'],
        fields: [['name', S, 'Space name']],
        verbs: ['list', 'get', 'create'],
      },
    ],
  },
  {
    prefix: 'buildkite',
    product: 'Buildkite',
    server: 'devhub',
    resources: [
      {
        noun: 'pipeline',
        plural: 'pipelines',
        scope: [['org', S, 'Organization slug']],
        id: ['pipeline', S, 'Pipeline slug'],
        fields: [['repository', S, 'Git URL']],
        verbs: ['list', 'get', 'create'],
      },
      {
        noun: 'build',
        plural: 'builds',
        scope: [
          ['org', S, 'Organization slug'],
          ['pipeline', S, 'Pipeline slug'],
        ],
        id: ['build_number', I, 'Build number'],
        fields: [
          ['commit', S, 'Commit SHA or HEAD'],
          ['branch', S, 'Branch to build'],
          ['message', S, 'Build message'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          ['cancel', 'Cancels a running Buildkite build.', []],
          ['rebuild', 'Rebuilds a finished Buildkite build with the same commit and settings.', []],
          [
            'get_build_job_log',
            'Gets the log output of one job of a Buildkite build.',
            [['job_id', S, 'Job ID']],
            true,
          ],
          ['list_build_artifacts', 'Lists the artifacts a Buildkite build uploaded.', [], true],
        ],
      },
    ],
  },
  {
    prefix: 'sentry',
    product: 'Sentry',
    server: 'devhub',
    resources: [
      {
        noun: 'issue',
        plural: 'issues',
        scope: [
          ['organization', S, 'Organization slug'],
          ['project', S, 'Project slug'],
        ],
        id: ['issue_id', S, 'Sentry issue ID'],
        fields: [],
        verbs: [
          'list',
          'get',
          [
            'resolve',
            'Marks a Sentry error issue as resolved, optionally in the next release.',
            [['in_next_release', B, 'Resolve in the next release']],
          ],
          [
            'ignore',
            'Ignores (mutes) a Sentry issue for a time or until it happens again N times.',
            [['duration_minutes', I, 'Minutes to ignore']],
          ],
          [
            'get_issue_latest_event',
            'Gets the latest event of a Sentry issue with its stack trace and breadcrumbs.',
            [],
            true,
          ],
        ],
      },
      {
        noun: 'release',
        plural: 'releases',
        scope: [['organization', S, 'Organization slug']],
        id: ['version', S, 'Release version'],
        fields: [['projects', A, 'Project slugs']],
        verbs: ['list', 'create'],
      },
    ],
  },
  {
    prefix: 'npm',
    product: 'the npm registry',
    server: 'devhub',
    resources: [
      {
        noun: 'package',
        plural: 'packages',
        scope: [],
        id: ['name', S, 'Package name'],
        fields: [],
        verbs: [
          'search',
          'get',
          [
            'get_package_versions',
            'Lists the published versions of an npm package with their dates and dist-tags.',
            [],
            true,
          ],
          [
            'deprecate',
            'Marks a version range of an npm package as deprecated with a message.',
            [
              ['range', S, 'Semver range'],
              ['message', S, 'Deprecation message'],
            ],
          ],
          [
            'get_package_downloads',
            'Gets the download counts of an npm package over a period.',
            [['period', S, 'last-day, last-week, last-month']],
            true,
          ],
        ],
      },
    ],
  },
  {
    prefix: 'gmail',
    product: 'Gmail',
    server: 'devhub',
    resources: [
      {
        noun: 'message',
        plural: 'messages',
        scope: [],
        id: ['message_id', S, 'Message ID'],
        fields: [
          ['to', A, 'Recipient addresses'],
          ['subject', S, 'Subject line'],
          ['body', S, 'Plain-text body'],
          ['cc', A, 'Cc addresses'],
        ],
        verbs: [
          'search',
          'get',
          [
            'send',
            'Sends an email from the signed-in Gmail account.',
            [
              ['to', A, 'Recipient addresses'],
              ['subject', S, 'Subject line'],
              ['body', S, 'Plain-text body'],
            ],
          ],
          [
            'create_draft',
            'Saves an email as a Gmail draft without sending it.',
            [
              ['to', A, 'Recipient addresses'],
              ['subject', S, 'Subject line'],
              ['body', S, 'Body'],
            ],
          ],
          [
            'reply',
            'Replies to a Gmail message in its thread.',
            [
              ['body', S, 'Reply text'],
              ['reply_all', B, 'Reply to everyone'],
            ],
          ],
          [
            'modify_message_labels',
            'Adds or removes labels on a Gmail message (archive, star, mark read).',
            [
              ['add', A, 'Label IDs to add'],
              ['remove', A, 'Label IDs to remove'],
            ],
          ],
          'delete',
        ],
      },
    ],
  },
  {
    prefix: 'calendar',
    product: 'Google Calendar',
    server: 'devhub',
    resources: [
      {
        noun: 'event',
        plural: 'events',
        scope: [['calendar_id', S, 'Calendar ID (default: primary)']],
        id: ['event_id', S, 'Event ID'],
        fields: [
          ['summary', S, 'Event title'],
          ['start', S, 'Start time, ISO 8601'],
          ['end', S, 'End time, ISO 8601'],
          ['attendees', A, 'Attendee emails'],
          ['location', S, 'Place or video link'],
        ],
        verbs: [
          ...CRUD,
          [
            'find_free_slots',
            'Finds times when all the given people are free within a range.',
            [
              ['emails', A, 'People to check'],
              ['duration_minutes', I, 'Length of the meeting'],
            ],
            true,
          ],
        ],
      },
    ],
  },
  {
    prefix: 'drive',
    product: 'Google Drive',
    server: 'devhub',
    resources: [
      {
        noun: 'file',
        plural: 'files',
        scope: [],
        id: ['file_id', S, 'Drive file ID'],
        fields: [
          ['name', S, 'File name'],
          ['parent_folder_id', S, 'Folder to put it in'],
          ['mime_type', S, 'MIME type'],
        ],
        verbs: [
          'search',
          'get',
          [
            'upload',
            'Uploads a local file to Google Drive.',
            [
              ['local_path', S, 'Path of the file to upload'],
              ['name', S, 'Name in Drive'],
            ],
          ],
          [
            'download',
            'Downloads a Google Drive file, exporting Docs and Sheets to a chosen format.',
            [['export_format', S, 'pdf, docx, csv…']],
            true,
          ],
          [
            'share',
            'Shares a Drive file with a person or makes it public with a link.',
            [
              ['email', S, 'Who to share with'],
              ['role', S, 'reader, commenter or writer'],
            ],
          ],
          'delete',
          ['create_folder', 'Creates a folder in Google Drive.', [['name', S, 'Folder name']]],
        ],
      },
    ],
  },
  {
    prefix: 'gitlab',
    product: 'GitLab',
    server: 'devhub',
    resources: [
      {
        noun: 'merge_request',
        plural: 'merge_requests',
        scope: [['project_id', S, 'Project ID or path']],
        id: ['mr_iid', I, 'Merge request IID'],
        fields: [
          ['title', S, 'Title'],
          ['source_branch', S, 'Branch with the changes'],
          ['target_branch', S, 'Branch to merge into'],
          ['description', S, 'Description'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          'update',
          [
            'accept',
            'Accepts (merges) a GitLab merge request once its pipeline passes.',
            [['squash', B, 'Squash commits']],
          ],
          ['approve', 'Approves a GitLab merge request.', []],
          ['add_merge_request_note', 'Adds a comment to a GitLab merge request.', [['body', S, 'Comment text']]],
        ],
      },
      {
        noun: 'pipeline',
        plural: 'pipelines',
        scope: [['project_id', S, 'Project ID or path']],
        id: ['pipeline_id', I, 'Pipeline ID'],
        fields: [['ref', S, 'Branch or tag to run on']],
        verbs: [
          'list',
          'get',
          'create',
          ['retry', 'Retries the failed jobs of a GitLab CI pipeline.', []],
          ['cancel', 'Cancels a running GitLab CI pipeline.', []],
          ['get_job_trace', 'Gets the log (trace) of a GitLab CI job.', [['job_id', I, 'Job ID']], true],
        ],
      },
      {
        noun: 'issue',
        plural: 'issues',
        scope: [['project_id', S, 'Project ID or path']],
        id: ['issue_iid', I, 'Issue IID'],
        fields: [
          ['title', S, 'Title'],
          ['description', S, 'Description'],
          ['labels', S, 'Comma-separated labels'],
        ],
        verbs: ['list', 'get', 'create', 'update'],
      },
    ],
  },
  {
    prefix: 'linear',
    product: 'Linear',
    server: 'devhub',
    resources: [
      {
        noun: 'issue',
        plural: 'issues',
        scope: [['team_id', S, 'Team ID or key']],
        id: ['issue_id', S, 'Issue identifier, e.g. ENG-42'],
        fields: [
          ['title', S, 'Title'],
          ['description', S, 'Markdown description'],
          ['priority', I, '0 none to 4 low'],
          ['state', S, 'Workflow state name'],
          ['assignee_id', S, 'Assignee'],
        ],
        verbs: [
          ...CRUD,
          'search',
          ['add_issue_comment', 'Adds a comment to a Linear issue.', [['body', S, 'Markdown comment']]],
        ],
      },
      {
        noun: 'project',
        plural: 'projects',
        scope: [],
        id: ['project_id', S, 'Project ID'],
        fields: [
          ['name', S, 'Project name'],
          ['target_date', S, 'Target date'],
        ],
        verbs: ['list', 'get', 'create', 'update'],
      },
      {
        noun: 'cycle',
        plural: 'cycles',
        scope: [['team_id', S, 'Team ID or key']],
        id: ['cycle_id', S, 'Cycle ID'],
        fields: [],
        verbs: ['list'],
      },
    ],
  },
  {
    prefix: 'notion',
    product: 'Notion',
    server: 'devhub',
    resources: [
      {
        noun: 'page',
        plural: 'pages',
        scope: [],
        id: ['page_id', S, 'Page ID'],
        fields: [
          ['title', S, 'Title'],
          ['parent_id', S, 'Parent page or database'],
          ['content', S, 'Markdown content'],
        ],
        verbs: [
          'get',
          'create',
          'update',
          [
            'append_blocks',
            'Appends content blocks to the end of a Notion page.',
            [['content', S, 'Markdown to append']],
          ],
          'search',
        ],
      },
      {
        noun: 'database',
        plural: 'databases',
        scope: [],
        id: ['database_id', S, 'Database ID'],
        fields: [['title', S, 'Title']],
        verbs: [
          'get',
          [
            'query',
            'Queries a Notion database with filters and sorts, returning its rows.',
            [
              ['filter', S, 'Filter as JSON'],
              ['sorts', S, 'Sorts as JSON'],
            ],
            true,
          ],
          'create',
        ],
      },
    ],
  },
  {
    prefix: 'figma',
    product: 'Figma',
    server: 'devhub',
    resources: [
      {
        noun: 'file',
        plural: 'files',
        scope: [],
        id: ['file_key', S, 'File key from the Figma URL'],
        fields: [],
        verbs: [
          'get',
          [
            'export_images',
            'Exports nodes of a Figma file as PNG, SVG or PDF images.',
            [
              ['node_ids', A, 'Node IDs'],
              ['format', S, 'png, svg or pdf'],
            ],
            true,
          ],
          ['list_comments', 'Lists the comments on a Figma file.', [], true],
          ['post_comment', 'Posts a comment on a Figma file.', [['message', S, 'Comment text']]],
        ],
      },
    ],
  },
  {
    prefix: 'aws_ec2',
    product: 'AWS EC2',
    server: 'opscloud',
    resources: [
      {
        noun: 'instance',
        plural: 'instances',
        scope: region,
        id: ['instance_id', S, 'Instance ID, i-…'],
        fields: [
          ['image_id', S, 'AMI ID'],
          ['instance_type', S, 'e.g. t3.micro'],
          ['key_name', S, 'SSH key pair name'],
          ['subnet_id', S, 'Subnet to launch in'],
        ],
        verbs: [
          'list',
          'get',
          [
            'launch',
            'Launches new EC2 instances from an AMI.',
            [
              ['image_id', S, 'AMI ID'],
              ['instance_type', S, 'Instance type'],
              ['count', I, 'How many'],
            ],
          ],
          ['start', 'Starts a stopped EC2 instance.', []],
          ['stop', 'Stops a running EC2 instance (it can be started again).', []],
          ['reboot', 'Reboots an EC2 instance.', []],
          ['terminate', 'Terminates an EC2 instance; its instance-store data is lost.', []],
          ['get_console_output', 'Gets the serial console output of an EC2 instance, for boot problems.', [], true],
        ],
      },
      {
        noun: 'security_group',
        plural: 'security_groups',
        scope: region,
        id: ['group_id', S, 'Security group ID'],
        fields: [
          ['name', S, 'Group name'],
          ['vpc_id', S, 'VPC ID'],
        ],
        verbs: [
          'list',
          'create',
          'delete',
          [
            'authorize_security_group_ingress',
            'Opens an inbound port range in a security group to a CIDR.',
            [
              ['port', I, 'Port'],
              ['cidr', S, 'Source CIDR'],
            ],
          ],
        ],
      },
    ],
  },
  {
    prefix: 's3',
    product: 'Amazon S3',
    server: 'opscloud',
    resources: [
      {
        noun: 'bucket',
        plural: 'buckets',
        scope: region,
        id: ['bucket', S, 'Bucket name'],
        fields: [['versioning', B, 'Turn on versioning']],
        verbs: ['list', 'create', 'delete', ['get_bucket_policy', 'Gets the access policy of an S3 bucket.', [], true]],
      },
      {
        noun: 'object',
        plural: 'objects',
        scope: [['bucket', S, 'Bucket name']],
        id: ['key', S, 'Object key'],
        fields: [],
        verbs: [
          ['list', 'Lists the objects in an S3 bucket under a prefix.', [['prefix', S, 'Key prefix']], true],
          'get',
          [
            'put',
            'Uploads content to an S3 object.',
            [
              ['content', S, 'Content or local path'],
              ['content_type', S, 'MIME type'],
            ],
          ],
          'delete',
          [
            'presign',
            'Creates a presigned URL to download or upload an S3 object without credentials.',
            [['expires_seconds', I, 'Lifetime of the URL']],
            true,
          ],
          [
            'copy',
            'Copies an S3 object to another key or bucket.',
            [
              ['dest_bucket', S, 'Target bucket'],
              ['dest_key', S, 'Target key'],
            ],
          ],
        ],
      },
    ],
  },
  {
    prefix: 'postgres',
    product: 'PostgreSQL',
    server: 'opscloud',
    resources: [
      {
        noun: 'query',
        plural: 'queries',
        scope: db,
        id: ['sql', S, 'SQL statement'],
        fields: [],
        verbs: [
          [
            'run',
            'Runs a read-only SQL query against a PostgreSQL database and returns the rows.',
            [
              ['params', A, 'Bind parameters'],
              ['row_limit', I, 'Maximum rows'],
            ],
            true,
          ],
          [
            'execute',
            'Executes a SQL statement that changes data or schema (INSERT, UPDATE, DDL) in PostgreSQL.',
            [['params', A, 'Bind parameters']],
          ],
          [
            'explain',
            'Shows the query plan of a SQL statement (EXPLAIN ANALYZE optional).',
            [['analyze', B, 'Run it for real timings']],
            true,
          ],
        ],
      },
      {
        noun: 'table',
        plural: 'tables',
        scope: db,
        id: ['table', S, 'Table name, schema-qualified'],
        fields: [],
        verbs: [
          'list',
          ['describe', 'Describes a PostgreSQL table: columns, types, indexes and constraints.', [], true],
        ],
      },
      {
        noun: 'backup',
        plural: 'backups',
        scope: db,
        id: ['backup_id', S, 'Backup ID'],
        fields: [['label', S, 'Label for the backup']],
        verbs: [
          'list',
          'create',
          [
            'restore',
            'Restores a PostgreSQL database from a backup into a new or existing instance.',
            [['target', S, 'Target database']],
          ],
        ],
      },
      {
        noun: 'slow_query',
        plural: 'slow_queries',
        scope: db,
        id: ['query_id', S, 'Query ID'],
        fields: [],
        verbs: ['list'],
      },
    ],
  },
  {
    prefix: 'k8s',
    product: 'Kubernetes',
    server: 'opscloud',
    resources: [
      {
        noun: 'pod',
        plural: 'pods',
        scope: k8s,
        id: ['pod', S, 'Pod name'],
        fields: [],
        verbs: [
          'list',
          'get',
          'delete',
          [
            'get_pod_logs',
            'Gets the logs of a pod container, optionally the previous (crashed) one.',
            [
              ['container', S, 'Container name'],
              ['previous', B, 'The previous instance'],
              ['tail_lines', I, 'Last N lines'],
            ],
            true,
          ],
          ['exec', 'Runs a command inside a pod container.', [['command', A, 'Command and arguments']]],
        ],
      },
      {
        noun: 'deployment',
        plural: 'deployments',
        scope: k8s,
        id: ['deployment', S, 'Deployment name'],
        fields: [['image', S, 'Container image']],
        verbs: [
          'list',
          'get',
          ['scale', 'Scales a Kubernetes deployment to a number of replicas.', [['replicas', I, 'Desired replicas']]],
          ['restart', 'Restarts a deployment with a rolling restart of its pods.', []],
          [
            'rollback',
            'Rolls a deployment back to its previous revision.',
            [['revision', I, 'Revision (default: previous)']],
          ],
          [
            'set_deployment_image',
            'Updates the container image of a deployment, starting a rollout.',
            [
              ['container', S, 'Container'],
              ['image', S, 'New image'],
            ],
          ],
          ['get_rollout_status', 'Gets the rollout status of a deployment.', [], true],
        ],
      },
      {
        noun: 'service',
        plural: 'services',
        scope: k8s,
        id: ['service', S, 'Service name'],
        fields: [],
        verbs: ['list', 'get'],
      },
      {
        noun: 'event',
        plural: 'events',
        scope: k8s,
        id: ['object', S, 'Object name to filter by'],
        fields: [],
        verbs: ['list'],
      },
    ],
  },
  {
    prefix: 'slack',
    product: 'Slack',
    server: 'opscloud',
    resources: [
      {
        noun: 'message',
        plural: 'messages',
        scope: [channel],
        id: ['ts', S, 'Message timestamp'],
        fields: [['text', S, 'Message text (mrkdwn)']],
        verbs: [
          [
            'post',
            'Posts a message to a Slack channel, or in a thread with thread_ts.',
            [
              ['text', S, 'Message text (mrkdwn)'],
              ['thread_ts', S, 'Reply in this thread'],
            ],
          ],
          'update',
          'delete',
          [
            'search',
            'Searches Slack messages across channels with Slack search syntax.',
            [['query', S, 'Search query']],
            true,
          ],
          ['list_thread_replies', 'Lists the replies in a Slack thread.', [], true],
          ['add_reaction', 'Adds an emoji reaction to a Slack message.', [['emoji', S, 'Emoji name without colons']]],
          [
            'schedule',
            'Schedules a Slack message to be posted later.',
            [
              ['text', S, 'Message text'],
              ['post_at', S, 'When, ISO 8601'],
            ],
          ],
        ],
      },
      {
        noun: 'channel',
        plural: 'channels',
        scope: [],
        id: channel,
        fields: [
          ['name', S, 'Channel name'],
          ['is_private', B, 'Private channel'],
        ],
        verbs: [
          'list',
          'create',
          ['archive', 'Archives a Slack channel.', []],
          ['invite', 'Invites users to a Slack channel.', [['users', A, 'User IDs']]],
          ['set_channel_topic', 'Sets the topic of a Slack channel.', [['topic', S, 'New topic']]],
          ['get_channel_history', 'Gets the recent messages of a Slack channel.', [['limit', I, 'How many']], true],
        ],
      },
      {
        noun: 'user',
        plural: 'users',
        scope: [],
        id: ['user_id', S, 'User ID'],
        fields: [],
        verbs: [
          'list',
          'get',
          ['lookup_user_by_email', 'Finds a Slack user by email address.', [['email', S, 'Email address']], true],
          [
            'set_status',
            'Sets your Slack status text and emoji.',
            [
              ['status_text', S, 'Status'],
              ['status_emoji', S, 'Emoji'],
            ],
          ],
        ],
      },
    ],
  },
  {
    prefix: 'datadog',
    product: 'Datadog',
    server: 'opscloud',
    resources: [
      {
        noun: 'metric',
        plural: 'metrics',
        scope: [],
        id: ['query', S, 'Metric query, e.g. avg:system.cpu.user{env:prod}'],
        fields: [],
        verbs: [
          [
            'query_metrics',
            'Queries Datadog metric time series over a time range.',
            [
              ['from', S, 'Start time'],
              ['to', S, 'End time'],
            ],
            true,
          ],
          'list',
        ],
      },
      {
        noun: 'monitor',
        plural: 'monitors',
        scope: [],
        id: ['monitor_id', I, 'Monitor ID'],
        fields: [
          ['name', S, 'Monitor name'],
          ['query', S, 'Alert query'],
          ['message', S, 'Notification message with @-handles'],
          ['threshold', S, 'Critical threshold'],
        ],
        verbs: [
          ...CRUD,
          [
            'mute',
            'Mutes a Datadog monitor, optionally until a time or for a scope.',
            [['end', S, 'Unmute at, ISO 8601']],
          ],
          ['unmute', 'Unmutes a Datadog monitor.', []],
        ],
      },
      {
        noun: 'dashboard',
        plural: 'dashboards',
        scope: [],
        id: ['dashboard_id', S, 'Dashboard ID'],
        fields: [['title', S, 'Dashboard title']],
        verbs: ['list', 'get', 'create'],
      },
      {
        noun: 'log',
        plural: 'logs',
        scope: [],
        id: ['query', S, 'Log search query'],
        fields: [],
        verbs: [
          [
            'search',
            'Searches Datadog logs with a query over a time range.',
            [
              ['from', S, 'Start time'],
              ['to', S, 'End time'],
              ['limit', I, 'Maximum lines'],
            ],
            true,
          ],
          ['aggregate_logs', 'Counts or aggregates Datadog logs grouped by facets.', [['group_by', A, 'Facets']], true],
        ],
      },
    ],
  },
  {
    prefix: 'pagerduty',
    product: 'PagerDuty',
    server: 'opscloud',
    resources: [
      {
        noun: 'incident',
        plural: 'incidents',
        scope: [],
        id: ['incident_id', S, 'Incident ID'],
        fields: [
          ['title', S, 'Incident title'],
          ['service_id', S, 'Service it is on'],
          ['urgency', S, 'high or low'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          ['acknowledge', 'Acknowledges a triggered PagerDuty incident so escalation stops.', []],
          ['resolve', 'Resolves a PagerDuty incident.', [['resolution', S, 'Resolution note']]],
          ['add_incident_note', 'Adds a note to a PagerDuty incident timeline.', [['content', S, 'Note text']]],
          [
            'reassign',
            'Reassigns a PagerDuty incident to other users or an escalation policy.',
            [['assignee_ids', A, 'User IDs']],
          ],
        ],
      },
      {
        noun: 'oncall',
        plural: 'oncalls',
        scope: [],
        id: ['schedule_id', S, 'Schedule ID'],
        fields: [],
        verbs: [
          [
            'list',
            'Lists who is on call now (or at a time) per escalation policy and schedule.',
            [
              ['since', S, 'From'],
              ['until', S, 'To'],
            ],
            true,
          ],
        ],
      },
      {
        noun: 'schedule',
        plural: 'schedules',
        scope: [],
        id: ['schedule_id', S, 'Schedule ID'],
        fields: [],
        verbs: [
          'list',
          'get',
          [
            'create_schedule_override',
            'Creates an on-call override: someone covers a schedule for a time.',
            [
              ['user_id', S, 'Who covers'],
              ['start', S, 'Start'],
              ['end', S, 'End'],
            ],
          ],
        ],
      },
    ],
  },
  {
    prefix: 'stripe',
    product: 'Stripe',
    server: 'opscloud',
    resources: [
      {
        noun: 'customer',
        plural: 'customers',
        scope: [],
        id: ['customer_id', S, 'Customer ID, cus_…'],
        fields: [
          ['email', S, 'Email'],
          ['name', S, 'Full name'],
          ['metadata', S, 'Key-value metadata as JSON'],
        ],
        verbs: [...CRUD, 'search'],
      },
      {
        noun: 'invoice',
        plural: 'invoices',
        scope: [['customer_id', S, 'Customer ID']],
        id: ['invoice_id', S, 'Invoice ID, in_…'],
        fields: [['due_date', S, 'Due date']],
        verbs: [
          'list',
          'get',
          'create',
          ['finalize', 'Finalizes a draft Stripe invoice so it can be paid.', []],
          ['send', 'Emails a Stripe invoice to the customer.', []],
          ['void', 'Voids a finalized Stripe invoice.', []],
        ],
      },
      {
        noun: 'refund',
        plural: 'refunds',
        scope: [],
        id: ['refund_id', S, 'Refund ID'],
        fields: [
          ['payment_intent', S, 'Payment to refund'],
          ['amount', I, 'Amount in cents (default: all)'],
          ['reason', S, 'duplicate, fraudulent or requested_by_customer'],
        ],
        verbs: ['create', 'list'],
      },
      {
        noun: 'subscription',
        plural: 'subscriptions',
        scope: [['customer_id', S, 'Customer ID']],
        id: ['subscription_id', S, 'Subscription ID, sub_…'],
        fields: [
          ['price_id', S, 'Price ID'],
          ['quantity', I, 'Quantity'],
        ],
        verbs: [
          'list',
          'get',
          'create',
          'update',
          [
            'cancel',
            'Cancels a Stripe subscription now or at the period end.',
            [['at_period_end', B, 'Cancel at period end']],
          ],
        ],
      },
    ],
  },
  {
    prefix: 'hubspot',
    product: 'HubSpot CRM',
    server: 'opscloud',
    resources: [
      {
        noun: 'contact',
        plural: 'contacts',
        scope: [],
        id: ['contact_id', S, 'Contact ID'],
        fields: [
          ['email', S, 'Email'],
          ['firstname', S, 'First name'],
          ['lastname', S, 'Last name'],
          ['company', S, 'Company name'],
        ],
        verbs: [...CRUD, 'search'],
      },
      {
        noun: 'deal',
        plural: 'deals',
        scope: [],
        id: ['deal_id', S, 'Deal ID'],
        fields: [
          ['dealname', S, 'Deal name'],
          ['amount', S, 'Amount'],
          ['dealstage', S, 'Pipeline stage'],
          ['closedate', S, 'Expected close date'],
        ],
        verbs: [...CRUD],
      },
      {
        noun: 'company',
        plural: 'companies',
        scope: [],
        id: ['company_id', S, 'Company ID'],
        fields: [
          ['name', S, 'Company name'],
          ['domain', S, 'Web domain'],
        ],
        verbs: ['list', 'get', 'create'],
      },
    ],
  },
  {
    prefix: 'cloudflare_dns',
    product: 'Cloudflare DNS',
    server: 'opscloud',
    resources: [
      {
        noun: 'record',
        plural: 'records',
        scope: [['zone_id', S, 'Zone ID']],
        id: ['record_id', S, 'DNS record ID'],
        fields: [
          ['type', S, 'A, AAAA, CNAME, TXT, MX'],
          ['name', S, 'Record name'],
          ['content', S, 'Record value'],
          ['ttl', I, 'TTL seconds'],
          ['proxied', B, 'Through the Cloudflare proxy'],
        ],
        verbs: [...CRUD],
      },
      {
        noun: 'zone',
        plural: 'zones',
        scope: [],
        id: ['zone_id', S, 'Zone ID'],
        fields: [],
        verbs: [
          'list',
          'get',
          [
            'purge_cache',
            'Purges cached files of a Cloudflare zone, all or by URL.',
            [['files', A, 'URLs to purge (default: everything)']],
          ],
        ],
      },
    ],
  },
  {
    prefix: 'vault',
    product: 'HashiCorp Vault',
    server: 'opscloud',
    resources: [
      {
        noun: 'secret',
        plural: 'secrets',
        scope: [['mount', S, 'Secrets engine mount, e.g. secret']],
        id: ['path', S, 'Secret path'],
        fields: [['data', S, 'Key-value pairs as JSON']],
        verbs: [
          'list',
          'get',
          ['put', 'Writes a secret to Vault (a new version of a KV secret).', [['data', S, 'Key-value pairs as JSON']]],
          'delete',
          ['rotate', 'Rotates a dynamic Vault secret or database credential.', []],
        ],
      },
    ],
  },
  {
    prefix: 'terraform',
    product: 'Terraform Cloud',
    server: 'opscloud',
    resources: [
      {
        noun: 'workspace',
        plural: 'workspaces',
        scope: [['organization', S, 'Organization name']],
        id: ['workspace', S, 'Workspace name'],
        fields: [['terraform_version', S, 'Terraform version']],
        verbs: [
          'list',
          'get',
          ['lock', 'Locks a Terraform workspace so no runs start.', [['reason', S, 'Why']]],
          ['unlock', 'Unlocks a Terraform workspace.', []],
        ],
      },
      {
        noun: 'run',
        plural: 'runs',
        scope: [['workspace_id', S, 'Workspace ID']],
        id: ['run_id', S, 'Run ID'],
        fields: [['message', S, 'Run message']],
        verbs: [
          'list',
          'get',
          [
            'create_plan_run',
            'Queues a Terraform plan (and apply if auto-apply is on) in a workspace.',
            [
              ['message', S, 'Run message'],
              ['plan_only', B, 'Speculative plan only'],
            ],
          ],
          ['apply', 'Applies a Terraform run that is waiting for confirmation.', [['comment', S, 'Comment']]],
          ['discard', 'Discards a Terraform run that is waiting for confirmation.', []],
        ],
      },
    ],
  },
  {
    prefix: 'launchdarkly',
    product: 'LaunchDarkly',
    server: 'opscloud',
    resources: [
      {
        noun: 'flag',
        plural: 'flags',
        scope: [
          ['project_key', S, 'Project key'],
          ['environment', S, 'Environment key, e.g. production'],
        ],
        id: ['flag_key', S, 'Feature flag key'],
        fields: [
          ['name', S, 'Flag name'],
          ['description', S, 'What the flag controls'],
        ],
        verbs: [
          ...CRUD,
          ['toggle', 'Turns a LaunchDarkly feature flag on or off in an environment.', [['on', B, 'On or off']]],
          [
            'set_flag_rollout',
            'Sets the percentage rollout of a feature flag variation.',
            [['percentage', I, 'Percent of users']],
          ],
        ],
      },
    ],
  },
];

/** The read-only standard verbs. */
const READS = new Set(['list', 'get', 'search', 'describe']);

function schema(fields: readonly Field[], required: readonly string[]): GenTool['inputSchema'] {
  const properties: GenTool['inputSchema']['properties'] = {};
  for (const [name, type, description] of fields) properties[name] = { type, description };
  return { type: 'object', properties, required: required.filter((r) => r in properties) };
}

const names = (fs: readonly Field[]) => fs.map((f) => f[0]);

/** A standard verb's description and parameters. */
function standard(p: Product, r: Resource, verb: string): { description: string; fields: Field[]; required: string[] } {
  const scope = [...r.scope];
  const scopeNames = names(scope);
  const id = r.id;
  const paging: Field[] = [
    ['limit', I, 'Maximum results (default 30)'],
    ['cursor', S, 'Page cursor from the previous answer'],
  ];
  switch (verb) {
    case 'list':
      return {
        description: `Lists ${r.plural.replaceAll('_', ' ')} in ${p.product}, newest first, one page at a time.`,
        fields: [...scope, ...paging],
        required: scopeNames,
      };
    case 'get':
      return {
        description: `Gets one ${r.noun.replaceAll('_', ' ')} from ${p.product} by ${id[2].toLowerCase()}, with all its fields.`,
        fields: [...scope, id],
        required: [...scopeNames, id[0]],
      };
    case 'create':
      return {
        description: `Creates a new ${r.noun.replaceAll('_', ' ')} in ${p.product}.`,
        fields: [...scope, ...r.fields],
        required: [...scopeNames, ...names(r.fields.slice(0, 1))],
      };
    case 'update':
      return {
        description: `Updates an existing ${r.noun.replaceAll('_', ' ')} in ${p.product}; only the fields given change.`,
        fields: [...scope, id, ...r.fields],
        required: [...scopeNames, id[0]],
      };
    case 'delete':
      return {
        description: `Deletes a ${r.noun.replaceAll('_', ' ')} from ${p.product}. This cannot be undone.`,
        fields: [...scope, id],
        required: [...scopeNames, id[0]],
      };
    default:
      return {
        description: `Searches ${r.plural.replaceAll('_', ' ')} in ${p.product} by text and filters.`,
        fields: [...scope, ['query', S, 'Search text'], ...paging],
        required: ['query'],
      };
  }
}

function toolsOf(p: Product): GenTool[] {
  const out: GenTool[] = [];
  for (const r of p.resources) {
    for (const verb of r.verbs) {
      if (typeof verb === 'string') {
        const s = standard(p, r, verb);
        const noun = verb === 'list' || verb === 'search' ? r.plural : r.noun;
        out.push({
          name: `${p.prefix}_${verb}_${noun}`,
          description: s.description,
          inputSchema: schema(s.fields, s.required),
          readOnly: READS.has(verb),
        });
        continue;
      }
      const [name, description, extra = [], readOnly = false] = verb;
      const fields = [...r.scope, ...(name === 'list' ? [] : [r.id]), ...extra];
      // A one-word verb takes the resource's noun; a longer name is the whole tool name.
      const suffix = name.includes('_') ? name : `${name}_${name === 'list' || name === 'search' ? r.plural : r.noun}`;
      out.push({
        name: `${p.prefix}_${suffix}`,
        description,
        inputSchema: schema(fields, names(fields.slice(0, r.scope.length + (name === 'list' ? 0 : 1)))),
        readOnly,
      });
    }
  }
  return out;
}

/** Every generated tool of a server, in catalogue order. */
export function serverTools(server: 'devhub' | 'opscloud'): GenTool[] {
  return PRODUCTS.filter((p) => p.server === server).flatMap(toolsOf);
}

export const SERVERS = ['devhub', 'opscloud'] as const;

export type QueryKind = 'exact' | 'prefix' | 'paraphrase' | 'task';

export interface SearchQuery {
  kind: QueryKind;
  query: string;
  /** The tools that answer it (their server names); finding any one in the top five is a hit. */
  want: readonly string[];
}

/**
 * The queries, written before the ranker was (and not changed to fit it): names as a model copies
 * them, descriptions in other words, and tasks as a user would state them.
 */
export const QUERIES: readonly SearchQuery[] = [
  { kind: 'exact', query: 'mcp__devhub__github_create_issue', want: ['github_create_issue'] },
  { kind: 'exact', query: 'github_merge_pull_request', want: ['github_merge_pull_request'] },
  { kind: 'exact', query: 'mcp__opscloud__k8s_get_pod_logs', want: ['k8s_get_pod_logs'] },
  { kind: 'exact', query: 'slack_post_message', want: ['slack_post_message'] },
  { kind: 'exact', query: 'mcp__opscloud__stripe_create_refund', want: ['stripe_create_refund'] },
  { kind: 'exact', query: 'jira_transition_issue', want: ['jira_transition_issue'] },
  { kind: 'exact', query: 'postgres_run_query', want: ['postgres_run_query'] },
  { kind: 'exact', query: 'mcp__devhub__confluence_search_pages', want: ['confluence_search_pages'] },
  { kind: 'exact', query: 'pagerduty_acknowledge_incident', want: ['pagerduty_acknowledge_incident'] },
  { kind: 'exact', query: 'vault_get_secret', want: ['vault_get_secret'] },
  { kind: 'exact', query: 'launchdarkly_toggle_flag', want: ['launchdarkly_toggle_flag'] },
  { kind: 'exact', query: 'aws_ec2_list_instances', want: ['aws_ec2_list_instances'] },
  { kind: 'prefix', query: 'k8s_scale', want: ['k8s_scale_deployment'] },
  { kind: 'prefix', query: 'mcp__devhub__gmail_send', want: ['gmail_send_message'] },
  { kind: 'paraphrase', query: 'create a pull request from a branch', want: ['github_create_pull_request'] },
  { kind: 'paraphrase', query: 'read the logs of a crashed pod', want: ['k8s_get_pod_logs'] },
  { kind: 'paraphrase', query: 'roll back a deployment to the previous revision', want: ['k8s_rollback_deployment'] },
  { kind: 'paraphrase', query: 'send an email', want: ['gmail_send_message'] },
  { kind: 'paraphrase', query: 'search slack messages', want: ['slack_search_messages'] },
  {
    kind: 'paraphrase',
    query: 'run a SQL query against the database',
    want: ['postgres_run_query', 'postgres_execute_query'],
  },
  { kind: 'paraphrase', query: 'find free time for a meeting with several people', want: ['calendar_find_free_slots'] },
  { kind: 'paraphrase', query: 'refund a payment', want: ['stripe_create_refund'] },
  { kind: 'paraphrase', query: 'who is on call right now', want: ['pagerduty_list_oncalls'] },
  { kind: 'paraphrase', query: 'mute a monitor', want: ['datadog_mute_monitor'] },
  { kind: 'paraphrase', query: 'purge the CDN cache', want: ['cloudflare_dns_purge_cache'] },
  { kind: 'paraphrase', query: 'add a DNS record', want: ['cloudflare_dns_create_record'] },
  { kind: 'paraphrase', query: 'upload a file to Google Drive', want: ['drive_upload_file'] },
  { kind: 'paraphrase', query: 'get the diff of a pull request', want: ['github_get_pull_request_diff'] },
  { kind: 'paraphrase', query: 'rerun a failed GitHub Actions workflow', want: ['github_rerun_workflow_run'] },
  { kind: 'paraphrase', query: 'list EC2 instances in a region', want: ['aws_ec2_list_instances'] },
  { kind: 'paraphrase', query: 'create a presigned URL for an S3 object', want: ['s3_presign_object'] },
  { kind: 'paraphrase', query: 'describe the columns of a table', want: ['postgres_describe_table'] },
  { kind: 'paraphrase', query: 'assign a Jira ticket to someone', want: ['jira_assign_issue'] },
  { kind: 'paraphrase', query: "cancel a customer's subscription", want: ['stripe_cancel_subscription'] },
  { kind: 'paraphrase', query: 'invite people to a Slack channel', want: ['slack_invite_channel'] },
  { kind: 'paraphrase', query: 'rotate a database credential', want: ['vault_rotate_secret'] },
  {
    kind: 'task',
    query: 'open an issue in the tracker about the login bug',
    want: ['github_create_issue', 'jira_create_issue', 'linear_create_issue', 'gitlab_create_issue'],
  },
  { kind: 'task', query: 'let the team know in #deploys that the release is out', want: ['slack_post_message'] },
  {
    kind: 'task',
    query: 'the checkout service is crashlooping, I need to see why',
    want: ['k8s_get_pod_logs', 'k8s_list_events', 'k8s_list_pods', 'k8s_get_pod'],
  },
  { kind: 'task', query: 'bump the api deployment to 5 replicas', want: ['k8s_scale_deployment'] },
  { kind: 'task', query: 'ship the hotfix: merge PR 42', want: ['github_merge_pull_request'] },
  {
    kind: 'task',
    query: "what's the error rate of checkout in prod over the last hour",
    want: ['datadog_query_metrics', 'datadog_aggregate_logs', 'datadog_search_logs'],
  },
  { kind: 'task', query: 'acknowledge the page I just got', want: ['pagerduty_acknowledge_incident'] },
  { kind: 'task', query: 'move ENG-123 to Done', want: ['jira_transition_issue'] },
  { kind: 'task', query: 'turn off the new-checkout feature flag in production', want: ['launchdarkly_toggle_flag'] },
  { kind: 'task', query: 'write the release notes and publish v2.3.0 on GitHub', want: ['github_create_release'] },
  { kind: 'task', query: 'find the customer with email jane@example.com in Stripe', want: ['stripe_search_customers'] },
  {
    kind: 'task',
    query: 'why was the last CI build red? show me the job log',
    want: ['buildkite_get_build_job_log', 'gitlab_get_job_trace', 'github_get_workflow_run_logs'],
  },
  {
    kind: 'task',
    query: 'schedule a 30 minute sync with Alice and Bob tomorrow',
    want: ['calendar_create_event', 'calendar_find_free_slots'],
  },
  { kind: 'task', query: 'save the DB before the migration', want: ['postgres_create_backup'] },
  {
    kind: 'task',
    query: 'which queries are slow on the orders database',
    want: ['postgres_list_slow_queries', 'postgres_explain_query'],
  },
  {
    kind: 'task',
    query: 'open port 443 to the world on the web security group',
    want: ['aws_ec2_authorize_security_group_ingress'],
  },
  { kind: 'task', query: 'stop the staging box to save money', want: ['aws_ec2_stop_instance'] },
  { kind: 'task', query: 'put the new API key in the secrets store', want: ['vault_put_secret'] },
  {
    kind: 'task',
    query: 'update the onboarding doc in the wiki',
    want: ['confluence_update_page', 'notion_update_page'],
  },
  { kind: 'task', query: 'email the March invoice to the customer again', want: ['stripe_send_invoice'] },
  { kind: 'task', query: 'add Maria as a lead in the CRM', want: ['hubspot_create_contact'] },
  {
    kind: 'task',
    query: 'deploy the new image tag to the payments deployment',
    want: ['k8s_set_deployment_image'],
  },
  { kind: 'task', query: 'kick off a terraform plan for the network workspace', want: ['terraform_create_plan_run'] },
  {
    kind: 'task',
    query: 'approve the merge request',
    want: ['gitlab_approve_merge_request', 'github_review_pull_request'],
  },
];

/**
 * Twenty more, written after the ranker (its synonym table included) was settled and measured once as
 * they are: a check that the ranker was not fitted to the sixty above.
 */
export const HELD_OUT: readonly SearchQuery[] = [
  {
    kind: 'task',
    query: 'comment on the pull request with my review notes',
    want: ['github_review_pull_request', 'github_comment_issue'],
  },
  {
    kind: 'task',
    query: 'list the open PRs in the repo',
    want: ['github_list_pull_requests', 'github_search_pull_requests'],
  },
  { kind: 'task', query: 'show the latest stack trace for this Sentry error', want: ['sentry_get_issue_latest_event'] },
  {
    kind: 'task',
    query: "make the docs bucket's objects downloadable via a temporary link",
    want: ['s3_presign_object'],
  },
  {
    kind: 'task',
    query: 'check which version of the web deployment is rolling out',
    want: ['k8s_get_rollout_status', 'k8s_get_deployment'],
  },
  { kind: 'task', query: 'start the sprint', want: ['jira_start_sprint'] },
  { kind: 'task', query: 'reply to the email from the vendor', want: ['gmail_reply_message'] },
  { kind: 'task', query: 'what tables are in the analytics database', want: ['postgres_list_tables'] },
  { kind: 'task', query: 'void the duplicate invoice', want: ['stripe_void_invoice'] },
  { kind: 'task', query: 'share the design doc with bob@example.com', want: ['drive_share_file'] },
  {
    kind: 'task',
    query: 'point api.example.com at the new load balancer',
    want: ['cloudflare_dns_update_record', 'cloudflare_dns_create_record'],
  },
  { kind: 'task', query: "resolve the PagerDuty incident, it's fixed", want: ['pagerduty_resolve_incident'] },
  { kind: 'task', query: 'retry the failed GitLab pipeline', want: ['gitlab_retry_pipeline'] },
  { kind: 'task', query: 'who is this Slack user? I have their email', want: ['slack_lookup_user_by_email'] },
  { kind: 'task', query: 'export the Figma frames as SVG', want: ['figma_export_images'] },
  {
    kind: 'task',
    query: "restart the api pods, they're stuck",
    want: ['k8s_restart_deployment', 'k8s_delete_pod'],
  },
  { kind: 'task', query: 'cut the rollout of the new search flag to 10%', want: ['launchdarkly_set_flag_rollout'] },
  { kind: 'task', query: 'how many downloads did our package get last week', want: ['npm_get_package_downloads'] },
  { kind: 'task', query: 'add a note to the incident timeline', want: ['pagerduty_add_incident_note'] },
  { kind: 'task', query: 'get me the backlog for the mobile board', want: ['jira_get_board_backlog'] },
];

/** A tool's registry name: mcp__<server>__<name>. */
export function fullName(name: string): string {
  for (const s of SERVERS) if (serverTools(s).some((t) => t.name === name)) return `mcp__${s}__${name}`;
  throw new Error(`no generated tool is named ${name}`);
}
